#pragma once
// One iteration's attention work as the scheduler hands it over (prefill chunks and
// decode KV lengths), and collapse(): the batch reduced to what the attention op's three
// leaves take. Plain data, so simulators and tools can name a batch without the kernels.
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "costdsl/detail/blocked_loop.hpp"
#include "costdsl/error.hpp"

namespace costdsl::ops {

struct PrefillChunk {
  std::uint32_t prefix_len = 0;  // tokens already in the KV cache
  std::uint32_t append_len = 0;  // tokens this chunk adds
};

// One iteration's attention work: the chunk list and decode KV lengths. decode_rows: the
// query rows each decode runs at its KV length: 1, or 1 + the draft tokens a speculative
// step verifies (every row a decode's: its logits, its KV row, its attention over the KV).
struct AttentionBatch {
  // Speculative steps verify a few tokens to a few hundred (tree drafts): far above that
  // is a mistake, and the rows' sums must stay exact in 64 bits.
  static constexpr std::uint32_t max_decode_rows = 4096;
  std::span<const PrefillChunk> prefill;
  std::span<const std::uint32_t> decode_kv;
  std::uint32_t decode_rows = 1;
};

// The batch collapsed to what the three leaves take (a pure helper).
struct AttentionWork {
  std::span<const PrefillChunk> prefill;
  std::uint64_t append_tokens = 0;  // Σ append_len + decode count: KV rows written
  std::uint64_t decode_count = 0;
  std::uint64_t decode_total_kv = 0;
};

// A chunk appending 0 tokens or a decode with 0 KV tokens is not an idle phase but a
// malformed request: it would still count as a request (a logits row, a KV row, GEMM
// rows) while its attention costs 0, a silently wrong total. Throws InputError.
inline AttentionWork collapse(const AttentionBatch& b) {
  if (b.decode_rows == 0 || b.decode_rows > AttentionBatch::max_decode_rows)
    throw InputError("decode_rows " + std::to_string(b.decode_rows) +
                     ": a decode runs 1 row, or 1 + the draft tokens a speculative step verifies (1 to " +
                     std::to_string(AttentionBatch::max_decode_rows) + ")");
  AttentionWork w{b.prefill, 0, std::uint64_t{b.decode_kv.size()} * b.decode_rows, 0};
  for (std::size_t i = 0; i < b.prefill.size(); ++i) {
    const PrefillChunk& c = b.prefill[i];
    if (c.append_len == 0)
      throw InputError("prefill chunk " + std::to_string(i) + " (prefix_len " + std::to_string(c.prefix_len) +
                       "): append_len is 0; a chunk must append at least 1 token");
    w.append_tokens += c.append_len;
  }
  w.append_tokens += w.decode_count;
  // Two plain reductions the compiler vectorises with baseline x86-64 (SSE2): a widening
  // sum and an any-zero flag (an unsigned min would need SSE4.1, and scalar it took ~45 ns
  // for 64 decodes, a tenth of a Llama iteration); blocked, so that -O2 vectorises it too.
  std::uint64_t kv = 0;
  std::uint32_t any_zero = 0;
  const std::uint32_t* len = b.decode_kv.data();
  costdsl::detail::for_each_index_blocked(b.decode_kv.size(), [&](std::size_t i) {
    kv += len[i];
    any_zero |= len[i] == 0 ? ~std::uint32_t{0} : 0;
  });
  if (any_zero != 0) {
    std::size_t i = 0;
    while (b.decode_kv[i] != 0) ++i;
    throw InputError("decode request " + std::to_string(i) +
                     ": KV length is 0; a decode attends to at least its own token (KV length >= 1)");
  }
  w.decode_total_kv = kv * b.decode_rows;
  return w;
}

// The batch as a sliding-window layer (window > 0) sees it: a decode reads at most
// `window` KV tokens (a paged kernel skips the pages out of reach, so the decode leaf
// costs what a window-long KV costs). Prefill chunks stay as they are: the prefill
// kernel's config carries the window (kernels/attn_prefill.hpp). window 0: collapse(b).
// (Not an overload of collapse: archs pass ops::collapse as a function.)
inline AttentionWork collapse_window(const AttentionBatch& b, std::uint32_t window) {
  AttentionWork w = collapse(b);
  if (window == 0) return w;
  std::uint64_t kv = 0;
  for (std::uint32_t len : b.decode_kv) kv += len < window ? len : window;
  w.decode_total_kv = kv * b.decode_rows;
  return w;
}

// Chunked local attention (Llama-4's layers with RoPE): the context is cut into chunks of
// `chunk` tokens and a token attends only within its own, so a decode at KV length `len`
// reads the (len - 1) % chunk + 1 tokens of its chunk so far.
inline AttentionWork collapse_chunked(const AttentionBatch& b, std::uint32_t chunk) {
  AttentionWork w = collapse(b);
  if (chunk == 0) return w;
  std::uint64_t kv = 0;
  for (std::uint32_t len : b.decode_kv) kv += (len - 1) % chunk + 1;
  w.decode_total_kv = kv * b.decode_rows;
  return w;
}

}  // namespace costdsl::ops
