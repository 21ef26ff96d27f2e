#pragma once
// L1 reduce_scatter: the sum across ranks, each rank keeps 1/n of the result.
// Input `bytes` = the full input buffer each rank holds, NCCL's size convention; bus factor
// (n−1)/n: each rank sends the n−1 partial shards it does not keep.
#include "costdsl/kernels/detail/bus_collective.hpp"
#include "costdsl/kernels/detail/compiled_once.hpp"

namespace costdsl::kernels {

struct ReduceScatter : detail::BusCollective<CollectiveKind::reduce_scatter, "reduce_scatter"> {};

}  // namespace costdsl::kernels

COSTDSL_KERNEL_COMPILED_ONCE(ReduceScatter);
