#pragma once
// L1 all_reduce: the sum of a buffer across num_gpus ranks, every rank gets the result.
// Input `bytes` = the full buffer each rank holds (not 1/n of it); ring bus factor 2·(n−1)/n
// (a reduce-scatter, then an all-gather).
//
// Two backends, as serving frameworks run it under CUDA graphs: NCCL, and the framework's
// own custom all-reduce (one-shot / two-shot over NVLink), which is much faster for small
// messages but exists only up to its buffer size and within one NVLink group. The leaf
// takes the faster measured one; the custom backend is bounded: it answers only inside the
// message sizes and GPU counts it was measured at (never extrapolated), NCCL beyond.
#include <string>
#include <string_view>
#include <vector>

#include "costdsl/kernels/detail/bus_collective.hpp"
#include "costdsl/kernels/detail/compiled_once.hpp"

namespace costdsl::kernels {

struct AllReduce : detail::BusCollective<CollectiveKind::all_reduce, "all_reduce"> {
  static std::vector<std::string> default_backends() { return {"nccl", "custom"}; }
  static bool bounded_backend(std::string_view backend) { return backend == "custom"; }
};

}  // namespace costdsl::kernels

COSTDSL_KERNEL_COMPILED_ONCE(AllReduce);
