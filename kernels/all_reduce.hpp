#pragma once
// L1 all_reduce: the sum of a buffer across num_gpus ranks, every rank gets the result.
// Input `bytes` = the full buffer each rank holds (not 1/n of it); ring bus factor 2·(n−1)/n
// (a reduce-scatter, then an all-gather).
#include "costdsl/kernels/detail/bus_collective.hpp"

namespace costdsl::kernels {

struct AllReduce : detail::BusCollective<CollectiveKind::all_reduce, "all_reduce"> {};

}  // namespace costdsl::kernels
