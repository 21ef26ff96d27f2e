#pragma once
// L1 gdn_conv1d_prefill: the short causal depthwise convolution of a Gated DeltaNet layer
// over a batch of fresh prefill sequences (causal_conv1d_fn, per rank): every channel of
// the packed q | k | v projection output (conv_dim = 2·num_k_heads·head_k_dim +
// num_v_heads·head_v_dim) is convolved along its sequence with its own d_conv taps, then
// SiLU; each sequence leaves its last d_conv − 1 inputs per channel as its conv state for
// decode. The batch is `batch` sequences of `seq_len` tokens each, as serving frameworks
// launch varlen prefills and aiconfigurator measures them.
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "costdsl/detail/str.hpp"
#include "costdsl/dim.hpp"
#include "costdsl/dtype.hpp"
#include "costdsl/kernel_def.hpp"
#include "costdsl/kernels/detail/compiled_once.hpp"
#include "costdsl/kernels/detail/gdn_heads.hpp"
#include "costdsl/reflect.hpp"

namespace costdsl::kernels {

struct GdnConv1dPrefill : detail::SequenceAxes {
  static constexpr std::string_view kind = "gdn_conv1d_prefill";
  static constexpr Family family = Family::memory;

  struct Config {
    COSTDSL_FIELDS((Dtype, dtype), (Dim, num_k_heads), (Dim, head_k_dim), (Dim, num_v_heads), (Dim, head_v_dim),
                   (Dim, d_conv));
  };
  // Input, axes, point, input_at, off-grid and axis rules, idle, tokens: SequenceAxes.

  static detail::GdnHeads heads(const Config& c) {
    return detail::GdnHeads::of(c);
  }
  // The launch is channel-parallel and its time follows conv_dim: a layout no table holds
  // answers from the nearest conv_dim of the same dtype and width.
  static double transfer_distance(const Config& a, const Config& b) {
    if (a.dtype != b.dtype || a.d_conv != b.d_conv) return std::numeric_limits<double>::infinity();
    return std::abs(std::log2(heads(a).conv_dim() / heads(b).conv_dim()));
  }


  // Per output element: d_conv multiply-adds (2·d_conv) and SiLU x / (1 + exp(−x)): exp,
  // add, divide = 3.
  static double flops(const Config& c, const Input& in) {
    if (idle(in)) return 0;
    return tokens(in) * heads(c).conv_dim() * (2.0 * double(c.d_conv) + 3.0);
  }
  // Every token's conv_dim inputs read and outputs written, the d_conv taps of each channel
  // read once, each sequence's final conv state (d_conv − 1 inputs per channel) written,
  // and two int32 per sequence (its start offset and its state slot). A fresh prefill
  // reads no earlier conv state.
  static double bytes(const Config& c, const Input& in) {
    if (idle(in)) return 0;
    const double e = bytes_per_element(c.dtype), ch = heads(c).conv_dim(), d = double(c.d_conv);
    return e * (2.0 * tokens(in) * ch + ch * d + double(in.batch) * ch * (d - 1)) + 8.0 * double(in.batch);
  }

  // A streaming elementwise kernel with SiLU, read once and written once: the activation
  // curve's (silu_and_mul's) bandwidth and launch floor.
  static Metrics roofline(const Roofline& rf, const Config& c, const Input& in) {
    return rf.memory_bound(flops(c, in), bytes(c, in), ElementwiseKind::activation);
  }
  // The taps and SiLU run in fp32 on the CUDA cores whatever the storage dtype.
  static double lower_bound_s(const Roofline& rf, const Config& c, const Input& in) {
    return rf.lower_bound_s(flops(c, in), bytes(c, in), Dtype::fp32);
  }

  // batch 1..64 × seq_len 1..32768 (powers of two, aiconfigurator's grid), up to 131072
  // tokens a launch: SGLang's conv kernel offsets tokens · conv_dim in int32.
  static constexpr std::uint64_t sweep_max_tokens = 131072;
  static std::vector<Input> sweep(const Config&) {
    std::vector<Input> grid;
    for (std::uint64_t b = 1; b <= 64; b *= 2)
      for (std::uint64_t l = 1; l <= 32768; l *= 2)
        if (b * l <= sweep_max_tokens) grid.push_back({b, l});
    return grid;
  }
  static std::vector<std::string> default_backends() { return {"sglang", "vllm", "trtllm"}; }

  static void validate(const Config& c) {
    heads(c).validate(kind, c.dtype);
    detail::validate_conv_width(kind, c.d_conv.value);
  }
};

}  // namespace costdsl::kernels

COSTDSL_KERNEL_COMPILED_ONCE(GdnConv1dPrefill);
