#pragma once
// WorkerOption: one worker parallelism the arch accepts, with its memory facts and the
// KV room its GPUs have left after the weights and the HBM reserve. The deployment search
// enumerates them; `costdsl simulate` pins one (or a prefill and a decode one).
#include <cmath>
#include <cstdint>

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
  // And what is left of it for KV once each of `batch` running requests holds its fixed
  // state (linear-attention layers; none: kv_tokens()), in whole KV tokens a state: the
  // state pool sized to the batch cap, as SGLang sizes its mamba pool to
  // max_running_requests and vLLM gives each running request its state block.
  std::uint64_t kv_tokens(std::uint32_t batch) const noexcept {
    if (!(f.state_bytes_per_request_per_gpu > 0 && f.kv_bytes_per_token_per_gpu > 0)) return kv_tokens();
    const double per_request = std::ceil(f.state_bytes_per_request_per_gpu / f.kv_bytes_per_token_per_gpu);
    const double left = double(kv_tokens()) - per_request * batch;
    return left > 0 ? static_cast<std::uint64_t>(left) : 0;
  }
};

}  // namespace costdsl::serve
