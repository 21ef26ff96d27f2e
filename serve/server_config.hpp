#pragma once
// The scheduler knobs of one serving worker.
#include <cstdint>

namespace costdsl::serve {

struct ServerConfig {
  std::uint32_t max_batch_tokens = 8192;  // new tokens (decodes + prefill chunk rows) per iteration
  std::uint32_t max_seqs = 256;           // running requests at most (a CUDA-graph / scheduler limit)
  std::uint32_t kv_block = 16;            // KV page size in tokens; reservations round up to it
  double reserve_fraction = 0.10;         // of HBM: activations, workspace, fragmentation
};

}  // namespace costdsl::serve
