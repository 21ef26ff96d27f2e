#pragma once
// How a deployment stores and multiplies each part of a model. Activations between
// kernels stay in the model's own dtype (torch_dtype): the quantized GEMMs quantize their
// input on the fly, norms, rotary embeddings, all-reduces, the embedding and lm_head
// (every quantized checkpoint excludes it) run unquantized. The exception: a per-tensor
// fp8 checkpoint with static activation scales lets a framework fuse the quantize into
// the kernel before a projection (fp8_from_norm, _attention, _activation), whose GEMM
// then runs alone.
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "costdsl/dtype.hpp"
#include "costdsl/error.hpp"
#include "costdsl/fields.hpp"

namespace costdsl {

// A model config is its shape, a Parallelism and a Quantization (deployed.hpp): these
// fields are the ones every worklet reads its weights' and KV cache's dtypes from.
struct Quantization {
  // gemm_dtype: dense and attention projections' weights (their GEMMs); expert_dtype:
  // routed experts' weights; kv_dtype: the KV cache (and the prefill attention reading it).
  // fp8_from_norm / _attention / _activation: the RMSNorm, the attention and the SiLU·mul
  // before a per-tensor fp8 projection write its input in fp8 (qkv and up/gate, o_proj,
  // down_proj), the quantize fused into them; only with gemm_dtype fp8 (check()).
  // expert_fp8_activations: the routed experts quantize their input to MXFP8 before
  // multiplying mxfp4 weights (W4A8: TensorRT-LLM's and FlashInfer's trtllm-gen MXFP4 x
  // MXFP8 kernel, aiconfigurator's w4a8_mxfp4_mxfp8) instead of dequantizing the weights to
  // 16-bit activations (W4A16); only with expert_dtype mxfp4 (check()).
  COSTDSL_FIELDS((Dtype, gemm_dtype, Dtype::bf16), (Dtype, expert_dtype, Dtype::bf16), (Dtype, kv_dtype, Dtype::bf16),
                 (bool, fp8_from_norm, false), (bool, fp8_from_attention, false), (bool, fp8_from_activation, false),
                 (bool, expert_fp8_activations, false));

  // Every component in one dtype: an unquantized checkpoint's (its torch_dtype).
  static constexpr Quantization uniform(Dtype d) noexcept { return {d, d, d}; }

  // The producers that write fp8 for the projections after them (the fp8_from_* fields).
  struct Fp8Producers {
    bool norm = false, attention = false, activation = false;
    constexpr bool any() const noexcept { return norm || attention || activation; }
    friend bool operator==(const Fp8Producers&, const Fp8Producers&) = default;
  };
  constexpr Fp8Producers fp8_producers() const noexcept {
    return {fp8_from_norm, fp8_from_attention, fp8_from_activation};
  }

  // Components a user names on the command line; unnamed ones keep the checkpoint's.
  // Naming the experts' weight format names their activations too: 16-bit unless the
  // format says W4A8 (expert_fp8_activations set with it).
  struct Choice {
    std::optional<Dtype> gemm_dtype, expert_dtype, kv_dtype;
    std::optional<Fp8Producers> fp8_producers{};
    bool expert_fp8_activations = false;
    bool empty() const noexcept { return !gemm_dtype && !expert_dtype && !kv_dtype && !fp8_producers; }
  };

  Quantization with(const Choice& c) const {
    const Fp8Producers p = c.fp8_producers.value_or(fp8_producers());
    return {c.gemm_dtype.value_or(gemm_dtype),
            c.expert_dtype.value_or(expert_dtype),
            c.kv_dtype.value_or(kv_dtype),
            p.norm,
            p.attention,
            p.activation,
            c.expert_dtype ? c.expert_fp8_activations : expert_fp8_activations};
  }

  // A fused quantize writes values under one per-tensor scale: no other weight format's input.
  void check() const {
    if (fp8_producers().any() && gemm_dtype != Dtype::fp8)
      throw InputError("fp8 producers (" + producers_text() +
                       "): a quantize fused into the kernel before a projection is modelled for per-tensor fp8 GEMMs "
                       "with static scales (gemm=fp8), not gemm=" + std::string(name(gemm_dtype)));
    if (expert_fp8_activations && expert_dtype != Dtype::mxfp4)
      throw InputError("experts with fp8 activations (W4A8) are modelled for mxfp4 expert weights (moe=mxfp4_mxfp8), "
                       "not moe=" + std::string(name(expert_dtype)));
  }

  std::string text() const {
    std::string t = "gemm=" + std::string(name(gemm_dtype)) + " moe=" + expert_format() + " kv=" + std::string(name(kv_dtype));
    if (fp8_producers().any()) t += " fp8-from=" + producers_text();
    return t;
  }
  // The experts' format as --quant moe= names it: the weights' dtype, W4A8's mxfp4_mxfp8.
  std::string expert_format() const {
    return std::string(name(expert_dtype)) + (expert_fp8_activations ? "_mxfp8" : "");
  }
  std::string producers_text() const {
    std::string t;
    for (const auto& [on, what] : {std::pair{fp8_from_norm, "norm"}, std::pair{fp8_from_attention, "attention"},
                                   std::pair{fp8_from_activation, "activation"}})
      if (on) t += (t.empty() ? "" : ",") + std::string(what);
    return t.empty() ? "none" : t;
  }

  friend bool operator==(const Quantization&, const Quantization&) = default;
};

namespace detail {
// Calls f(item) for each comma-separated item of a flag's value.
template <class F>
void for_each_listed(std::string_view text, F&& f) {
  while (!text.empty()) {
    const std::size_t comma = text.find(',');
    f(text.substr(0, comma));
    text = comma == std::string_view::npos ? std::string_view{} : text.substr(comma + 1);
  }
}
}  // namespace detail

// Weight formats a quantized GEMM or expert runs in (what aiconfigurator's silicon tables
// and the serving frameworks call them: nvfp4 is costdsl's fp4).
inline Dtype parse_weight_format(std::string_view s, std::string_view flag) {
  if (s == "bf16" || s == "bfloat16") return Dtype::bf16;
  if (s == "fp16" || s == "float16") return Dtype::fp16;
  if (s == "fp8") return Dtype::fp8;
  if (s == "fp8_block") return Dtype::fp8_block;
  if (s == "nvfp4" || s == "fp4") return Dtype::fp4;
  if (s == "mxfp4") return Dtype::mxfp4;
  if (s == "int4" || s == "int4_wo" || s == "w4a16") return Dtype::int4;
  throw InputError(std::string(flag) + " '" + std::string(s) +
                   "' is not a weight format costdsl models (bf16, fp16, fp8, fp8_block, nvfp4, mxfp4, int4; experts "
                   "also mxfp4_mxfp8)");
}

// The experts' W4A8 format: mxfp4 weights under MXFP8 activations (its aiconfigurator name too).
constexpr bool is_w4a8_expert_format(std::string_view s) noexcept {
  return s == "mxfp4_mxfp8" || s == "w4a8_mxfp4_mxfp8";
}

// `--quant MODE` (dense GEMMs and experts alike) or `--quant gemm=MODE,moe=MODE`.
inline Quantization::Choice parse_quant_flag(std::string_view text, std::string_view flag = "--quant") {
  Quantization::Choice c;
  // int4 weight-only and W4A8 are modelled for routed experts, the one place each ships
  // (Kimi-K2.5's experts; gpt-oss's under TensorRT-LLM on Blackwell).
  const auto experts_only = [&](std::string_view mode, std::string_view where) {
    if (is_w4a8_expert_format(mode))
      throw InputError(std::string(where) + " " + std::string(mode) +
                       ": W4A8 (mxfp4 weights, MXFP8 activations) is modelled for routed experts only (" +
                       std::string(flag) + " moe=mxfp4_mxfp8)");
    const Dtype d = parse_weight_format(mode, where);
    if (d == Dtype::int4)
      throw InputError(std::string(where) + " int4: int4 weight-only is modelled for routed experts only (" +
                       std::string(flag) + " moe=int4)");
    return d;
  };
  if (text.find('=') == std::string_view::npos) {
    c.gemm_dtype = c.expert_dtype = experts_only(text, flag);
    return c;
  }
  detail::for_each_listed(text, [&](std::string_view part) {
    const std::size_t eq = part.find('=');
    const std::string_view key = part.substr(0, eq);
    if (eq == std::string_view::npos || (key != "gemm" && key != "moe"))
      throw InputError(std::string(flag) + " '" + std::string(part) + "': expected MODE or gemm=MODE,moe=MODE");
    const std::string where = std::string(flag) + " " + std::string(key);
    const std::string_view mode = part.substr(eq + 1);
    if (key == "gemm") {
      c.gemm_dtype = experts_only(mode, where);
    } else if (is_w4a8_expert_format(mode)) {
      c.expert_dtype = Dtype::mxfp4;
      c.expert_fp8_activations = true;
    } else {
      c.expert_dtype = parse_weight_format(mode, where);
    }
  });
  return c;
}

// `--fp8-from LIST`: the producers whose kernels write the per-tensor fp8 projections'
// input (norm, attention, activation, comma-separated; or none).
inline Quantization::Fp8Producers parse_fp8_producers(std::string_view text, std::string_view flag = "--fp8-from") {
  Quantization::Fp8Producers p;
  if (text == "none") return p;
  detail::for_each_listed(text, [&](std::string_view part) {
    if (part == "norm") p.norm = true;
    else if (part == "attention") p.attention = true;
    else if (part == "activation") p.activation = true;
    else
      throw InputError(std::string(flag) + " '" + std::string(part) +
                       "': expected a comma-separated list of norm, attention, activation (or none)");
  });
  return p;
}

// `--kv-dtype`: the KV cache holds 16-bit or fp8 values.
inline Dtype parse_kv_dtype(std::string_view s, std::string_view flag = "--kv-dtype") {
  if (s == "bf16" || s == "bfloat16") return Dtype::bf16;
  if (s == "fp16" || s == "float16") return Dtype::fp16;
  if (s == "fp8" || s == "fp8_e4m3") return Dtype::fp8;
  throw InputError(std::string(flag) + " '" + std::string(s) + "' is not a KV-cache dtype (bf16, fp16, fp8)");
}

}  // namespace costdsl
