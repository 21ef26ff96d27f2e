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

#include "costdsl/concepts.hpp"
#include "costdsl/dim.hpp"
#include "costdsl/dtype.hpp"
#include "costdsl/error.hpp"
#include "costdsl/inputs.hpp"
#include "costdsl/kernel.hpp"
#include "costdsl/kernels/attn_decode.hpp"
#include "costdsl/kernels/attn_prefill.hpp"
#include "costdsl/kernels/kv_cache_append.hpp"
#include "costdsl/leaf.hpp"
#include "costdsl/metrics.hpp"
#include "costdsl/ops/attention/batch.hpp"
#include "costdsl/sum.hpp"
#include "costdsl/timing.hpp"

namespace costdsl::ops {

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
