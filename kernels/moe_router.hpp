#pragma once
// L1 moe_router: router logits L[t, e] = X[t, hidden] · W_r[e, hidden]^T, then a softmax
// and top-k over the experts of each token (two launches, one slot: a fixed sequence).
#include <array>
#include <string>
#include <vector>

#include "costdsl/detail/str.hpp"
#include "costdsl/dim.hpp"
#include "costdsl/dtype.hpp"
#include "costdsl/kernel_def.hpp"
#include "costdsl/kernels/detail/compiled_once.hpp"
#include "costdsl/reflect.hpp"
#include "costdsl/token_axis.hpp"

namespace costdsl::kernels {

struct MoeRouter {
  static constexpr std::string_view kind = "moe_router";
  static constexpr Family family = Family::gemm;

  struct Config {
    COSTDSL_FIELDS((Dtype, dtype), (Dim, hidden), (Dim, num_experts), (Dim, top_k));
  };
  struct Input {
    COSTDSL_FIELDS((std::uint64_t, tokens));
  };
  static constexpr std::array<std::string_view, 1> axes{"tokens"};

  static std::array<double, 1> point(const Config&, const Input& in) { return {double(in.tokens)}; }

  // Sub-16-bit GEMMs write bf16 logits; others write their own dtype.
  static Dtype logits_dtype(const Config& c) { return bytes_per_element(c.dtype) < 2 ? Dtype::bf16 : c.dtype; }

  // Router GEMM: 2·tokens·num_experts·hidden.
  static double gemm_flops(const Config& c, const Input& in) {
    return 2.0 * double(in.tokens) * double(c.num_experts) * double(c.hidden);
  }
  // Router GEMM: X and W_r read, the logits written; nothing launches for no tokens.
  static double gemm_bytes(const Config& c, const Input& in) {
    if (in.tokens == 0) return 0;
    const double t = double(in.tokens), e = double(c.num_experts), h = double(c.hidden);
    return bytes_per_element(c.dtype) * (t * h + e * h) + bytes_per_element(logits_dtype(c)) * t * e;
  }
  // Top-k pass: softmax per logit (subtract max, exp, sum, divide = 4; the max and the
  // top-k search are comparisons, not counted).
  static double topk_flops(const Config& c, const Input& in) { return 4.0 * double(in.tokens) * double(c.num_experts); }
  // Top-k pass: the logits read, then top_k fp32 weights and int32 expert ids written per token.
  static double topk_bytes(const Config& c, const Input& in) {
    const double t = double(in.tokens);
    return bytes_per_element(logits_dtype(c)) * t * double(c.num_experts) + 8.0 * t * double(c.top_k);
  }
  static double flops(const Config& c, const Input& in) { return gemm_flops(c, in) + topk_flops(c, in); }
  static double bytes(const Config& c, const Input& in) { return gemm_bytes(c, in) + topk_bytes(c, in); }

  // The two launches run back to back on one stream: their times add.
  static Metrics roofline(const Roofline& rf, const Config& c, const Input& in) {
    Metrics m = rf.gemm(double(in.tokens), double(c.num_experts), double(c.hidden), c.dtype, c.dtype, logits_dtype(c));
    algebra::accumulate_sum(m, rf.memory_bound(topk_flops(c, in), topk_bytes(c, in), ElementwiseKind::generic));
    return m;
  }
  // Sum of each launch's bound (the GEMM on the tensor cores, the top-k on fp32 CUDA cores).
  static double lower_bound_s(const Roofline& rf, const Config& c, const Input& in) {
    return rf.lower_bound_s(gemm_flops(c, in), gemm_bytes(c, in), c.dtype) +
           rf.lower_bound_s(topk_flops(c, in), topk_bytes(c, in), Dtype::fp32);
  }

  // Decode sizes 1..16 then the token axis.
  static std::vector<Input> sweep(const Config&) {
    std::vector<Input> grid;
    for (std::uint32_t t : gemm_m_axis()) grid.push_back({t});
    return grid;
  }
  static std::vector<std::string> default_backends() { return {"torch"}; }

  static void validate(const Config& c) {
    auto check = [](std::string_view field, std::uint64_t v, std::uint64_t max) {
      if (v == 0 || v > max) throw ConfigError(costdsl::detail::str("moe_router: ", field, " ", v, " must be in 1..", max));
    };
    check("hidden", c.hidden, 1u << 20);
    check("num_experts", c.num_experts, 16384);  // the largest MoE ships 512 experts
    if (c.top_k == 0 || c.top_k > c.num_experts)
      throw ConfigError(costdsl::detail::str("moe_router: top_k ", c.top_k.value, " must be in 1..num_experts (", c.num_experts.value, ")"));
  }
};

}  // namespace costdsl::kernels

COSTDSL_KERNEL_COMPILED_ONCE(MoeRouter);
