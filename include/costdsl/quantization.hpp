#pragma once
// How a deployment stores and multiplies each part of a model. Activations between
// kernels stay in the model's own dtype (torch_dtype): the quantized GEMMs quantize their
// input on the fly, norms, rotary embeddings, all-reduces, the embedding and lm_head
// (every quantized checkpoint excludes it) run unquantized.
#include <optional>
#include <string>
#include <string_view>

#include "costdsl/dtype.hpp"
#include "costdsl/error.hpp"
#include "costdsl/fields.hpp"

namespace costdsl {

// A model config is its shape, a Parallelism and a Quantization (deployed.hpp): these
// fields are the ones every worklet reads its weights' and KV cache's dtypes from.
struct Quantization {
  // gemm_dtype: dense and attention projections' weights (their GEMMs); expert_dtype:
  // routed experts' weights; kv_dtype: the KV cache (and the prefill attention reading it).
  COSTDSL_FIELDS((Dtype, gemm_dtype, Dtype::bf16), (Dtype, expert_dtype, Dtype::bf16), (Dtype, kv_dtype, Dtype::bf16));

  // Every component in one dtype: an unquantized checkpoint's (its torch_dtype).
  static constexpr Quantization uniform(Dtype d) noexcept { return {d, d, d}; }

  // Components a user names on the command line; unnamed ones keep the checkpoint's.
  struct Choice {
    std::optional<Dtype> gemm_dtype, expert_dtype, kv_dtype;
    bool empty() const noexcept { return !gemm_dtype && !expert_dtype && !kv_dtype; }
  };

  Quantization with(const Choice& c) const {
    return {c.gemm_dtype.value_or(gemm_dtype), c.expert_dtype.value_or(expert_dtype), c.kv_dtype.value_or(kv_dtype)};
  }

  std::string text() const {
    return "gemm=" + std::string(name(gemm_dtype)) + " moe=" + std::string(name(expert_dtype)) +
           " kv=" + std::string(name(kv_dtype));
  }

  friend bool operator==(const Quantization&, const Quantization&) = default;
};

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
                   "' is not a weight format costdsl models (bf16, fp16, fp8, fp8_block, nvfp4, mxfp4, int4)");
}

// `--quant MODE` (dense GEMMs and experts alike) or `--quant gemm=MODE,moe=MODE`.
inline Quantization::Choice parse_quant_flag(std::string_view text, std::string_view flag = "--quant") {
  Quantization::Choice c;
  // int4 weight-only is modelled for routed experts, the one place it ships (Kimi-K2.5).
  const auto no_int4_gemm = [&](Dtype d, std::string_view where) {
    if (d == Dtype::int4)
      throw InputError(std::string(where) + " int4: int4 weight-only is modelled for routed experts only (" +
                       std::string(flag) + " moe=int4)");
    return d;
  };
  if (text.find('=') == std::string_view::npos) {
    c.gemm_dtype = c.expert_dtype = no_int4_gemm(parse_weight_format(text, flag), flag);
    return c;
  }
  while (!text.empty()) {
    const std::size_t comma = text.find(',');
    const std::string_view part = text.substr(0, comma);
    text = comma == std::string_view::npos ? std::string_view{} : text.substr(comma + 1);
    const std::size_t eq = part.find('=');
    const std::string_view key = part.substr(0, eq);
    if (eq == std::string_view::npos || (key != "gemm" && key != "moe"))
      throw InputError(std::string(flag) + " '" + std::string(part) + "': expected MODE or gemm=MODE,moe=MODE");
    const std::string where = std::string(flag) + " " + std::string(key);
    const Dtype d = parse_weight_format(part.substr(eq + 1), where);
    (key == "gemm" ? c.gemm_dtype : c.expert_dtype) = key == "gemm" ? no_int4_gemm(d, where) : d;
  }
  return c;
}

// `--kv-dtype`: the KV cache holds 16-bit or fp8 values.
inline Dtype parse_kv_dtype(std::string_view s, std::string_view flag = "--kv-dtype") {
  if (s == "bf16" || s == "bfloat16") return Dtype::bf16;
  if (s == "fp16" || s == "float16") return Dtype::fp16;
  if (s == "fp8" || s == "fp8_e4m3") return Dtype::fp8;
  throw InputError(std::string(flag) + " '" + std::string(s) + "' is not a KV-cache dtype (bf16, fp16, fp8)");
}

}  // namespace costdsl
