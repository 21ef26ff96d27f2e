#pragma once
// L2 compound op: Gated DeltaNet linear attention (per rank), the token mixer of Qwen3-Next
// and Qwen3.5's linear layers. Four fixed leaves whatever the batch (INV-1):
//   conv_prefill  the short causal conv over every prefill chunk, one varlen launch
//   conv_decode   its one-token step for every decode, updating each request's conv state
//   prefill       the chunked gated delta rule over every prefill chunk, one varlen launch
//   decode        the fused recurrent step for every decode, on each request's fp32 state
// A layer keeps a fixed-size recurrent state per request instead of a KV cache: nothing
// grows with the context, so no leaf reads KV lengths and there is no cache append. A
// chunk with a prefix starts from the state its earlier chunks left: the same work as a
// fresh sequence of its length (the kinds already read and write one state a sequence).
// Decodes and prefill chunks run as separate launches, as vLLM's GDN backend splits them.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "costdsl/concepts.hpp"
#include "costdsl/dim.hpp"
#include "costdsl/dtype.hpp"
#include "costdsl/inputs.hpp"
#include "costdsl/kernel.hpp"
#include "costdsl/kernels/gdn_conv1d_decode.hpp"
#include "costdsl/kernels/gdn_conv1d_prefill.hpp"
#include "costdsl/kernels/gdn_decode.hpp"
#include "costdsl/kernels/gdn_prefill.hpp"
#include "costdsl/leaf.hpp"
#include "costdsl/metrics.hpp"
#include "costdsl/ops/attention/batch.hpp"
#include "costdsl/sum.hpp"
#include "costdsl/timing.hpp"

namespace costdsl::ops {

// A sequence-running GDN kind (batch × seq_len) over the step's prefill chunks, which run
// in one varlen launch: evaluated once on the equivalent uniform batch (as many sequences
// as chunks, each the mean append length; the work is linear in the tokens but for the
// last partial chunk of 64), its reported work the exact sum over the chunks.
template <KernelDef K>
struct GdnChunks {
  static constexpr std::string_view kind = K::kind;
  static constexpr Family family = K::family;
  using Input = std::span<const PrefillChunk>;
  Kernel<K> kernel;

  static typename K::Input uniform(const Input& chunks) {
    if (chunks.empty()) return {0, 0};
    double appended = 0;
    for (const PrefillChunk& c : chunks) appended += c.append_len;
    const double len = std::max(1.0, std::round(appended / double(chunks.size())));
    return {chunks.size(), static_cast<std::uint64_t>(len)};
  }
  template <Quantities Q = Quantities::with_energy>
  Metrics eval(const Input& chunks) const {
    Metrics m = kernel.template eval<Q>(uniform(chunks));
    if (chunks.size() > 1 && (m.flops != 0 || m.bytes != 0)) {
      double flops = 0, bytes = 0;
      for (const PrefillChunk& c : chunks) {
        const typename K::Input one{1, c.append_len};
        flops += K::flops(kernel.config(), one);
        bytes += K::bytes(kernel.config(), one);
      }
      m.flops = flops;
      m.bytes = bytes;
    }
    return m;
  }
  bool same_answers_as(const GdnChunks& o) const noexcept { return kernel.same_answers_as(o.kernel); }
  std::vector<ConfigField> config_fields() const { return kernel.config_fields(); }
  std::vector<std::string> backends() const { return kernel.backends(); }
  std::vector<std::string> provenance() const { return kernel.provenance(); }
  double lower_bound_s(const Input& chunks) const { return kernel.lower_bound_s(uniform(chunks)); }
};

// Per-rank layout: the rank's k and v heads, their dims, the conv width; dtype the
// activations' (the state is fp32 inside the kinds).
struct GdnConfig {
  Dtype dtype = Dtype::bf16;
  Dim num_k_heads, head_k_dim, num_v_heads, head_v_dim, d_conv;
};

struct GatedDeltaNet {
  static auto build(const Timing& t, const GdnConfig& c) {
    using namespace kernels;
    return sum(leaf<"conv_prefill">(GdnChunks<GdnConv1dPrefill>{
                   Kernel<GdnConv1dPrefill>(t, {c.dtype, c.num_k_heads, c.head_k_dim, c.num_v_heads, c.head_v_dim, c.d_conv})}),
               leaf<"conv_decode">(Kernel<GdnConv1dDecode>(
                   t, {c.dtype, c.num_k_heads, c.head_k_dim, c.num_v_heads, c.head_v_dim, c.d_conv})),
               leaf<"prefill">(GdnChunks<GdnPrefill>{
                   Kernel<GdnPrefill>(t, {c.dtype, c.num_k_heads, c.head_k_dim, c.num_v_heads, c.head_v_dim})}),
               leaf<"decode">(Kernel<GdnDecode>(t, {c.dtype, c.num_k_heads, c.head_k_dim, c.num_v_heads, c.head_v_dim})));
  }
  // Slot inputs in the order build() minted the slots (checked at compile time).
  static auto inputs(const AttentionWork& w) {
    return costdsl::inputs(input<"conv_prefill">(w.prefill),
                           input<"conv_decode">(kernels::GdnConv1dDecode::Input{w.decode_count}),
                           input<"prefill">(w.prefill), input<"decode">(kernels::GdnDecode::Input{w.decode_count}));
  }
};

}  // namespace costdsl::ops
