#pragma once
// L2 compound op: attention with a paged KV cache (per rank). Three fixed
// leaves whatever the batch (INV-1):
//   kv_cache_append  every new token's K and V: Σ append_len + one per decode
//   prefill          all prefill chunks fan in to this one slot
//   decode           all decode requests collapse into one (count, Σ kv) cell
// A phase with no requests pushes zero. Ops see per-rank shapes only.
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "costdsl/costdsl.hpp"
#include "costdsl/error.hpp"
#include "costdsl/kernel.hpp"
#include "costdsl/kernels/attn_decode.hpp"
#include "costdsl/kernels/attn_prefill.hpp"
#include "costdsl/kernels/kv_cache_append.hpp"
#include "costdsl/ops/attention/batch.hpp"  // PrefillChunk, AttentionBatch

namespace costdsl::ops {

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
  AttentionWork w{b.prefill, 0, b.decode_kv.size(), 0};
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
  // for 64 decodes, a tenth of a Llama iteration).
  std::uint64_t kv = 0;
  std::uint32_t any_zero = 0;
  for (std::uint32_t len : b.decode_kv) {
    kv += len;
    any_zero |= len == 0 ? ~std::uint32_t{0} : 0;
  }
  if (any_zero != 0) {
    std::size_t i = 0;
    while (b.decode_kv[i] != 0) ++i;
    throw InputError("decode request " + std::to_string(i) +
                     ": KV length is 0; a decode attends to at least its own token (KV length >= 1)");
  }
  w.decode_total_kv = kv;
  return w;
}

// The prefill slot: one leaf that sums the prefill kernel over every chunk.
template <KernelDef K>
struct ChunkedPrefill {
  static constexpr std::string_view kind = K::kind;
  using Input = std::span<const PrefillChunk>;
  Kernel<K> kernel;

  Metrics eval(const Input& chunks) const {
    Metrics total{};
    double slowest = -1;
    for (const PrefillChunk& c : chunks) {
      const Metrics m = kernel.eval({1, c.prefix_len, c.append_len});
      algebra::accumulate_sum(total, m);
      if (m.time_s > slowest) {  // report the backend of the chunk that dominates
        slowest = m.time_s;
        total.backend = m.backend;
      }
    }
    return total;
  }
  std::vector<ConfigField> config_fields() const { return kernel.config_fields(); }
  std::vector<std::string> backends() const { return kernel.backends(); }
  double lower_bound_s(const Input& chunks) const {
    double s = 0;
    for (const PrefillChunk& c : chunks) s += kernel.lower_bound_s({1, c.prefix_len, c.append_len});
    return s;
  }
};

// Per-rank attention shape.
struct AttentionConfig {
  Dtype dtype = Dtype::bf16;
  Dtype kv_dtype = Dtype::bf16;
  Dim num_qo_heads, num_kv_heads, head_dim;
};

struct Attention {
  static auto build(const Timing& t, const AttentionConfig& c) {
    using namespace kernels;
    return sum(leaf<"kv_cache_append">(Kernel<KvCacheAppend>(t, {c.kv_dtype, c.num_kv_heads, c.head_dim})),
               leaf<"prefill">(ChunkedPrefill<AttnPrefill>{
                   Kernel<AttnPrefill>(t, {c.dtype, c.num_qo_heads, c.num_kv_heads, c.head_dim})}),
               leaf<"decode">(Kernel<AttnDecode>(t, {c.kv_dtype, c.num_qo_heads, c.num_kv_heads, c.head_dim})));
  }
  // Slot inputs in the order build() minted the slots (checked at compile time).
  static auto inputs(const AttentionWork& w) {
    return costdsl::inputs(input<"kv_cache_append">(kernels::KvCacheAppend::Input{w.append_tokens}),
                           input<"prefill">(w.prefill),
                           input<"decode">(kernels::AttnDecode::Input{w.decode_count, w.decode_total_kv}));
  }
};

}  // namespace costdsl::ops
