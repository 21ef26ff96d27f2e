#pragma once
// KV capacity of a worker: HBM less weights less the reserve, over the KV bytes one
// token takes on one GPU, in whole blocks; with linear-attention layers, what each
// request's fixed state takes of it (state_tokens: put it in ServerConfig::state_tokens).
#include <cmath>
#include <cstdint>
#include <string>

#include "costdsl/error.hpp"
#include "costdsl/gpu_spec.hpp"
#include "costdsl/serve/detail/text.hpp"
#include "costdsl/serve/server_config.hpp"

namespace costdsl::serve {

struct KvBudget {
  double hbm_bytes = 0, weight_bytes = 0, reserve_bytes = 0, bytes_per_token = 0;  // per GPU
  std::uint64_t tokens = 0;         // on one GPU (under TP every rank holds a share of every token)
  std::uint32_t groups = 1;         // KV pools of the worker: DP attention groups each hold their own requests
  std::uint64_t state_tokens = 0;   // a request's fixed state in KV tokens of its bytes (0: none)
  std::uint64_t worker_tokens() const noexcept { return tokens * groups; }
};

// A request's fixed state of `state_bytes` in KV tokens of `bytes_per_token` each, rounded
// up (what its footprint adds in the pool); 0 without a state or a KV size.
inline std::uint64_t state_tokens_of(double state_bytes, double bytes_per_token) noexcept {
  if (!(state_bytes > 0 && bytes_per_token > 0)) return 0;
  return static_cast<std::uint64_t>(std::ceil(state_bytes / bytes_per_token));
}

// Sized: anything with weight_bytes_per_gpu() and kv_bytes_per_token_per_gpu() (an arch,
// an ArchModel); an arch with recurrent_state_bytes_per_request_per_gpu() also gives
// state_tokens, as WorkerOption::state_tokens does. groups: the worker's DP attention
// groups (1 for a dense arch).
template <class Sized>
KvBudget kv_budget(const Sized& m, const GpuSpec& gpu, const ServerConfig& cfg, std::uint32_t groups = 1) {
  if (cfg.kv_block == 0) throw InputError("kv_block must be at least 1");
  if (!(cfg.reserve_fraction >= 0 && cfg.reserve_fraction < 1))
    throw InputError("reserve_fraction " + detail::shortest(cfg.reserve_fraction) + " must be in [0, 1)");
  KvBudget b{gpu.hbm_capacity, m.weight_bytes_per_gpu(), cfg.reserve_fraction * gpu.hbm_capacity,
             m.kv_bytes_per_token_per_gpu(), 0, groups};
  const double free = b.hbm_bytes - b.weight_bytes - b.reserve_bytes;
  if (!(free > 0))
    throw InputError("weights (" + detail::fixed(b.weight_bytes / 1e9, 1) + " GB/GPU) and reserve (" +
                     detail::fixed(b.reserve_bytes / 1e9, 1) + " GB) exceed " + gpu.name + " HBM (" +
                     detail::fixed(b.hbm_bytes / 1e9, 1) + " GB)");
  if (!(b.bytes_per_token > 0) || !std::isfinite(b.bytes_per_token))
    throw InputError("KV bytes per token per GPU must be positive and finite, got " +
                     detail::shortest(b.bytes_per_token));
  // Whole blocks only: a partial block cannot hold a page.
  b.tokens = static_cast<std::uint64_t>(free / b.bytes_per_token) / cfg.kv_block * cfg.kv_block;
  if constexpr (requires { m.recurrent_state_bytes_per_request_per_gpu(); })
    b.state_tokens = state_tokens_of(m.recurrent_state_bytes_per_request_per_gpu(), b.bytes_per_token);
  return b;
}

}  // namespace costdsl::serve
