#pragma once
// One iteration's requests as attention sees them: prefill chunks and decode KV lengths.
// Plain std on purpose: a serving engine builds these every iteration and should not
// pay for the kernels to name them (ops/attention/attention.hpp has the op itself).
#include <cstdint>
#include <span>

namespace costdsl::ops {

struct PrefillChunk {
  std::uint32_t prefix_len = 0;  // tokens already in the KV cache
  std::uint32_t append_len = 0;  // tokens this chunk adds
};

// One iteration's attention work: the chunk list and decode KV lengths.
struct AttentionBatch {
  std::span<const PrefillChunk> prefill;
  std::span<const std::uint32_t> decode_kv;
};

}  // namespace costdsl::ops
