#pragma once
// L1 moe_sum: the top-k reduction after the combine all-to-all: every token adds up the
// top_k expert outputs routed back to it, each scaled by its router weight. A memory-bound
// k-input add; no table measures it, so it is timed on the residual-add curve.
#include <array>
#include <string>
#include <vector>

#include "costdsl/dim.hpp"
#include "costdsl/dtype.hpp"
#include "costdsl/kernel_def.hpp"
#include "costdsl/kernels/detail/compiled_once.hpp"
#include "costdsl/reflect.hpp"
#include "costdsl/token_axis.hpp"

namespace costdsl::kernels {

struct MoeSum {
  static constexpr std::string_view kind = "moe_sum";
  static constexpr Family family = Family::memory;

  struct Config {
    COSTDSL_FIELDS((Dtype, dtype), (Dim, hidden), (Dim, top_k));
  };
  struct Input {
    COSTDSL_FIELDS((std::uint64_t, tokens));
  };
  static constexpr std::array<std::string_view, 1> axes{"tokens"};

  static std::array<double, 1> point(const Config&, const Input& in) { return {double(in.tokens)}; }

  // A multiply-add per expert output element.
  static double flops(const Config& c, const Input& in) {
    return 2.0 * double(in.tokens) * double(c.top_k) * double(c.hidden);
  }
  // Read top_k rows and their fp32 router weights, write one row, per token.
  static double bytes(const Config& c, const Input& in) {
    const double t = double(in.tokens), k = double(c.top_k), h = double(c.hidden);
    return bytes_per_element(c.dtype) * t * h * (k + 1) + bytes_per_element(Dtype::fp32) * t * k;
  }

  static Metrics roofline(const Roofline& rf, const Config& c, const Input& in) {
    return rf.memory_bound(flops(c, in), bytes(c, in), ElementwiseKind::residual_add);
  }
  static double lower_bound_s(const Roofline& rf, const Config& c, const Input& in) {
    return rf.lower_bound_s(flops(c, in), bytes(c, in), Dtype::fp32);
  }

  static std::vector<Input> sweep(const Config&) {
    std::vector<Input> grid;
    for (std::uint32_t t : token_axis) grid.push_back({t});
    return grid;
  }
  static std::vector<std::string> default_backends() { return {"costdsl_cuda", "sglang", "vllm", "trtllm"}; }

  static void validate(const Config& c) {
    if (c.hidden == 0 || c.hidden > (1u << 20))
      throw ConfigError("moe_sum: hidden " + std::to_string(c.hidden.value) + " must be in 1.." +
                        std::to_string(1u << 20));
    if (c.top_k == 0 || c.top_k > 1024)
      throw ConfigError("moe_sum: top_k " + std::to_string(c.top_k.value) + " must be in 1..1024");
  }
};

}  // namespace costdsl::kernels

COSTDSL_KERNEL_COMPILED_ONCE(MoeSum);
