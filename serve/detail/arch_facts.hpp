#pragma once
// What a worker's shape is, read off an arch without building its tree.
#include <cstdint>

#include "costdsl/arch_def.hpp"
#include "costdsl/form.hpp"

namespace costdsl::serve::detail {

// GPUs of one worker: a DP-attention MoE arch's dp groups of group GPUs each (tp, or hp
// under DeepSeek's hp grain): ep with EP experts (they span every rank), the one group's tp
// with TP-sharded experts (ep 1); hp × tp for a KV-parallel dense arch (attention and FFN
// on all of them), tp otherwise.
template <class Arch>
std::uint32_t worker_gpus(const Arch& arch) {
  if constexpr (requires { arch.resolved().group; }) {
    return static_cast<std::uint32_t>(arch.resolved().dp * arch.resolved().group);
  } else if constexpr (requires { arch.resolved().dp; }) {
    return static_cast<std::uint32_t>(arch.resolved().dp * arch.resolved().tp);
  } else if constexpr (requires { values(arch.form()).hp; }) {
    return static_cast<std::uint32_t>(values(arch.form()).tp * values(arch.form()).hp);
  } else {
    return static_cast<std::uint32_t>(values(arch.form()).tp);
  }
}

// KV pools: each DP attention group keeps its own requests' KV; a dense arch has one.
template <class Arch>
std::uint32_t kv_groups(const Arch& arch) {
  if constexpr (DpArch<Arch>) {
    return static_cast<std::uint32_t>(arch.resolved().dp);
  } else {
    return 1;
  }
}

// Decoder layers of one iteration (config.json's num_hidden_layers); 0 where the form
// names none.
template <class Arch>
std::uint32_t layers(const Arch& arch) {
  if constexpr (requires { values(arch.form()).num_layers; }) {
    return static_cast<std::uint32_t>(values(arch.form()).num_layers);
  } else {
    return 0;
  }
}

}  // namespace costdsl::serve::detail
