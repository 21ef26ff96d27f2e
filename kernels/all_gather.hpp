#pragma once
// L1 all_gather: every rank receives the concatenation of all ranks' shards.
// Input `bytes` = the gathered output (all n shards), NCCL's size convention; bus factor
// (n−1)/n: each rank receives the n−1 shards it lacks.
#include "costdsl/kernels/detail/bus_collective.hpp"

namespace costdsl::kernels {

struct AllGather : detail::BusCollective<CollectiveKind::all_gather, "all_gather"> {};

}  // namespace costdsl::kernels

#if defined(COSTDSL_SEPARATE_COMPILATION)
#include "costdsl/kernel.hpp"
// Binding a leaf of this kind to its tables is build-time code: compiled once, in
// libcostdsl-compiled (src/kernels.cpp), not in every translation unit that builds a tree.
extern template class costdsl::Kernel<costdsl::kernels::AllGather>;
#endif
