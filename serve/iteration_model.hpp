#pragma once
// What the serving engine needs of a model: the GPU time of one scheduler iteration
// (its prefill chunks and decode requests), and the memory figures that size its KV
// cache. ArchModel adapts any costdsl arch to it; AnyModel erases the type.
#include <concepts>
#include <cstdint>

#include "costdsl/ops/attention/batch.hpp"

namespace costdsl::serve {

template <class M>
concept IterationModel = requires(M& m, const M& cm, const ops::AttentionBatch& batch) {
  { m.iteration_s(batch) } -> std::convertible_to<double>;  // not const: models keep scratch buffers
  { cm.kv_bytes_per_token_per_gpu() } -> std::convertible_to<double>;
  { cm.weight_bytes_per_gpu() } -> std::convertible_to<double>;
};

// A model that also counts the kernels one GPU launches in an iteration with a prompt in
// it (the host's share of an eager iteration: ServerConfig::eager_launch_s). A model
// without the count runs every iteration at its GPU time.
template <class M>
concept CountsLaunches = requires(M& m) {
  { m.launches() } -> std::convertible_to<double>;
};

// A model that says how many decoder layers its iteration runs: what a speculative step's
// draft layers add to it (ServerConfig::draft_tokens).
template <class M>
concept CountsLayers = requires(const M& m) {
  { m.layers() } -> std::convertible_to<std::uint32_t>;
};

}  // namespace costdsl::serve
