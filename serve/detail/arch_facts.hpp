#pragma once
// What a worker's shape is, read off an arch without building its tree.
#include <cstdint>

#include "costdsl/arch_def.hpp"
#include "costdsl/form.hpp"

namespace costdsl::serve::detail {

// GPUs of one worker: ep for a DP-attention MoE arch (its experts span all ranks), hp × tp
// for a KV-parallel one (attention and FFN on all of them), tp otherwise.
template <class Arch>
std::uint32_t worker_gpus(const Arch& arch) {
  if constexpr (requires { arch.resolved().ep; }) {
    return static_cast<std::uint32_t>(arch.resolved().ep);
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

}  // namespace costdsl::serve::detail
