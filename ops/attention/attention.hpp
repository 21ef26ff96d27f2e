#pragma once
// L2 compound op: attention with a paged KV cache (per rank). Three fixed
// leaves whatever the batch (INV-1):
//   kv_cache_append  every new token's K and V: Σ append_len + one per decode
//   prefill          all prefill chunks run as one batched launch in this one slot
//   decode           all decode requests collapse into one (count, Σ kv) cell
// A phase with no requests pushes zero. Ops see per-rank shapes only.
#include <algorithm>
#include <cmath>
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

// The prefill slot: every chunk of the step runs in ONE batched launch (as serving
// frameworks run varlen prefill), so the leaf evaluates the kernel once, on the launch's
// equivalent uniform batch: as many requests as chunks, each appending the mean append
// length with the prefix that keeps the step's total causal work (Σ append·(prefix +
// append/2)); identical chunks are exactly that batch. The reported work is the exact sum
// over the chunks.
template <KernelDef K>
struct ChunkedPrefill {
  static constexpr std::string_view kind = K::kind;
  static constexpr Family family = K::family;
  using Input = std::span<const PrefillChunk>;
  Kernel<K> kernel;

  // The uniform launch equivalent to the chunks (batch 0 when there are none).
  static typename K::Input uniform(const Input& chunks) {
    if (chunks.empty()) return {0, 0, 0};
    double appended = 0, pairs = 0;
    for (const PrefillChunk& c : chunks) {
      appended += c.append_len;
      pairs += double(c.append_len) * (double(c.prefix_len) + double(c.append_len) / 2);
    }
    const double n = double(chunks.size());
    const double append = std::max(1.0, std::round(appended / n));
    const double prefix = std::max(0.0, std::round(pairs / (n * append) - append / 2));
    return {chunks.size(), static_cast<std::uint64_t>(prefix), static_cast<std::uint64_t>(append)};
  }
  template <Quantities Q = Quantities::with_energy>
  Metrics eval(const Input& chunks) const {
    const typename K::Input u = uniform(chunks);
    Metrics m = kernel.template eval<Q>(u);
    if (chunks.size() > 1 && (m.flops != 0 || m.bytes != 0)) {
      double flops = 0, bytes = 0;
      for (const PrefillChunk& c : chunks) {
        const typename K::Input one{1, c.prefix_len, c.append_len};
        flops += K::flops(kernel.config(), one);
        bytes += K::bytes(kernel.config(), one);
      }
      m.flops = flops;
      m.bytes = bytes;
    }
    return m;
  }
  bool same_answers_as(const ChunkedPrefill& o) const noexcept { return kernel.same_answers_as(o.kernel); }
  std::vector<ConfigField> config_fields() const { return kernel.config_fields(); }
  std::vector<std::string> backends() const { return kernel.backends(); }
  std::vector<std::string> provenance() const { return kernel.provenance(); }
  double lower_bound_s(const Input& chunks) const { return kernel.lower_bound_s(uniform(chunks)); }
};

// The dtype a prefill computes in: over an 8-bit KV cache the frameworks run their fp8
// prefill kernels (Q quantized to the cache's dtype: TensorRT-LLM's fp8 context FMHA,
// FA3 / FlashInfer's fp8 paths), else the activations' dtype.
constexpr Dtype attention_prefill_dtype(Dtype dtype, Dtype kv_dtype) noexcept {
  return bytes_per_element(kv_dtype) < bytes_per_element(dtype) ? kv_dtype : dtype;
}

// Per-rank attention shape. window: a sliding-window layer's reach (0 = full). The
// decode leaf needs no window of its own: its input is already capped (collapse_window(b, window)).
struct AttentionConfig {
  Dtype dtype = Dtype::bf16;
  Dtype kv_dtype = Dtype::bf16;
  Dim num_qo_heads, num_kv_heads, head_dim;
  std::uint32_t window = 0;
};

struct Attention {
  static auto build(const Timing& t, const AttentionConfig& c) {
    using namespace kernels;
    return sum(leaf<"kv_cache_append">(Kernel<KvCacheAppend>(t, {c.kv_dtype, c.num_kv_heads, c.head_dim})),
               leaf<"prefill">(ChunkedPrefill<AttnPrefill>{
                   Kernel<AttnPrefill>(t, {attention_prefill_dtype(c.dtype, c.kv_dtype), c.num_qo_heads, c.num_kv_heads, c.head_dim, c.window})}),
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
