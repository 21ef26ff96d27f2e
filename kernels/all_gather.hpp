#pragma once
// L1 all_gather: every rank receives the concatenation of all ranks' shards.
// Input `bytes` = the gathered output (all n shards), NCCL's size convention; bus factor
// (n−1)/n: each rank receives the n−1 shards it lacks.
#include "costdsl/kernels/detail/bus_collective.hpp"
#include "costdsl/kernels/detail/compiled_once.hpp"

namespace costdsl::kernels {

struct AllGather : detail::BusCollective<CollectiveKind::all_gather, "all_gather"> {};

}  // namespace costdsl::kernels

COSTDSL_KERNEL_COMPILED_ONCE(AllGather);
