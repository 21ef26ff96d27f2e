#pragma once
// L2 ProjectionDtypes: the dtypes of a layer's projection GEMMs, per the kernel that feeds
// each: the weights' format, and the activations as each GEMM receives them from its
// producer (the RMSNorm before qkv and up/gate, the attention before o_proj, the SiLU·mul
// before down_proj): bf16, which the GEMM's launch quantizes for a narrow format, or fp8
// where the producer wrote them quantized (Quantization's fp8_from_*; kernels/gemm.hpp).
#include "costdsl/dtype.hpp"
#include "costdsl/quantization.hpp"

namespace costdsl::ops {

struct ProjectionDtypes {
  Dtype weights = Dtype::bf16;
  Dtype from_norm = Dtype::bf16, from_attention = Dtype::bf16, from_activation = Dtype::bf16;

  // Unquantized activations everywhere: the weights' GEMMs quantize their own input.
  static constexpr ProjectionDtypes of_weights(Dtype weights) noexcept { return {weights}; }
  // A deployment's: fp8 from the producers its quantization fuses (gemm_dtype fp8 only: any
  // other is Quantization::check()'s error, whoever built the deployment).
  static constexpr ProjectionDtypes of(const Quantization& q) {
    if (q.fp8_producers().any() && q.gemm_dtype != Dtype::fp8) q.check();
    const auto in = [](bool fused) { return fused ? Dtype::fp8 : Dtype::bf16; };
    return {q.gemm_dtype, in(q.fp8_from_norm), in(q.fp8_from_attention), in(q.fp8_from_activation)};
  }
};

}  // namespace costdsl::ops
