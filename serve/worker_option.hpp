#pragma once
// WorkerOption: one worker parallelism the arch accepts, with its memory facts and the
// KV room its GPUs have left after the weights and the HBM reserve. The deployment search
// enumerates them; `costdsl simulate` pins one (or a prefill and a decode one).
#include <cstdint>

#include "costdsl/serve/kv_budget.hpp"
#include "costdsl/serve/model_source.hpp"
#include "costdsl/serve/parallel.hpp"

namespace costdsl::serve {

struct WorkerOption {
  Parallel p;
  WorkerFacts f;
  std::uint64_t kv_tokens_per_group = 0;  // KV tokens one DP group (a dense worker: the worker) holds
  bool prefill = false;                   // kept by the disaggregated screen
  bool decode_only() const noexcept { return p.hp > 1; }
  // The worker's KV capacity over all its pools: what its scheduler reserves from.
  std::uint64_t kv_tokens() const noexcept { return kv_tokens_per_group * f.kv_groups; }
  // A request's fixed state (linear-attention layers) in KV tokens of its bytes, rounded
  // up: what its footprint adds (ServerConfig::state_tokens); 0 without one.
  std::uint64_t state_tokens() const noexcept {
    return state_tokens_of(f.state_bytes_per_request_per_gpu, f.kv_bytes_per_token_per_gpu);
  }
  // What one request whose KV is `kv_tokens` (in whole blocks) takes of a pool: its KV and
  // its fixed state, as the worker's footprint counts it. Every "does a request fit" check
  // asks this, so a state that does not fit is found before a simulation, not in one.
  std::uint64_t request_tokens(std::uint64_t kv_tokens) const noexcept { return kv_tokens + state_tokens(); }
};

}  // namespace costdsl::serve
