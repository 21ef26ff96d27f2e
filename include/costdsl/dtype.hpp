#pragma once
// Element types a kernel reads or computes in.
#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "costdsl/error.hpp"

namespace costdsl {

// fp8: e4m3 with one scale per tensor (or per output channel); the activations are
// quantized per tensor or per token in front of the GEMM.
// fp4: NVFP4 (e2m1 values, one e4m3 scale per 16 elements, one fp32 scale per tensor).
// mxfp4: OCP microscaling fp4 (e2m1 values, one shared 8-bit e8m0 scale per block of 32),
// the format gpt-oss ships its expert weights in.
// fp8_block: DeepSeek-style block-scaled e4m3: one fp32 scale per 128×128 weight block and
// per 1×128 activation group (the `weight_block_size: [128, 128]` checkpoints); its GEMMs
// are separate kernels from per-tensor fp8's, so it is a dtype of its own.
// int4: W4A16 weight-only int4 (one 16-bit scale per group of 32 weights, the
// compressed-tensors pack-quantized experts of Kimi-K2.5), dequantized to 16 bits and
// multiplied there; as a kernel's dtype it names that path, whose activations stay 16-bit.
enum class Dtype : std::uint8_t { fp32, bf16, fp16, fp8, fp4, mxfp4, fp8_block, int4 };

inline constexpr std::array<Dtype, 8> all_dtypes{Dtype::fp32, Dtype::bf16,  Dtype::fp16,      Dtype::fp8,
                                                 Dtype::fp4,  Dtype::mxfp4, Dtype::fp8_block, Dtype::int4};

constexpr std::string_view name(Dtype d) noexcept {
  switch (d) {
    case Dtype::fp32: return "fp32";
    case Dtype::bf16: return "bf16";
    case Dtype::fp16: return "fp16";
    case Dtype::fp8: return "fp8";
    case Dtype::fp4: return "fp4";
    case Dtype::mxfp4: return "mxfp4";
    case Dtype::fp8_block: return "fp8_block";
    case Dtype::int4: return "int4";
  }
  return "?";
}

// Storage size; fp4 packs two elements per byte; the block-scaled formats add their
// scales: mxfp4 (32 · 4 + 8) bits / 32 = 4.25 bits per element, fp8_block one fp32 per
// 128 × 128 weights (activations carry one per 128, but weights dominate what is stored),
// int4 a 16-bit scale per 32.
constexpr double bytes_per_element(Dtype d) noexcept {
  switch (d) {
    case Dtype::fp32: return 4;
    case Dtype::bf16: return 2;
    case Dtype::fp16: return 2;
    case Dtype::fp8: return 1;
    case Dtype::fp4: return 0.5;
    case Dtype::mxfp4: return 4.25 / 8;
    case Dtype::fp8_block: return 1 + 4.0 / (128 * 128);
    case Dtype::int4: return 4.5 / 8;  // (32 · 4 + 16) bits / 32
  }
  return 0;
}

// Bytes a kernel of this dtype reads per activation element: a weight-only format's
// activations stay 16-bit.
constexpr double activation_bytes(Dtype d) noexcept { return d == Dtype::int4 ? 2 : bytes_per_element(d); }

// Parses a dtype name; accepts the spellings configs and frameworks use.
inline Dtype parse_dtype(std::string_view s, std::string_view field = "dtype") {
  if (s == "fp32" || s == "float32" || s == "float") return Dtype::fp32;
  if (s == "bf16" || s == "bfloat16") return Dtype::bf16;
  if (s == "fp16" || s == "float16" || s == "half") return Dtype::fp16;
  if (s == "fp8" || s == "fp8_e4m3" || s == "e4m3") return Dtype::fp8;
  if (s == "fp4" || s == "nvfp4") return Dtype::fp4;
  if (s == "mxfp4") return Dtype::mxfp4;
  if (s == "fp8_block") return Dtype::fp8_block;
  if (s == "int4" || s == "int4_wo" || s == "w4a16") return Dtype::int4;
  throw InputError(std::string(field) + " '" + std::string(s) +
                   "' is not a known dtype (expected one of fp32, bf16, fp16, fp8, fp4, mxfp4, fp8_block, int4)");
}

}  // namespace costdsl
