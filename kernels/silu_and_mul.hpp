#pragma once
// L1 silu_and_mul: y[:, i] = silu(g[:, i]) · u[:, i] over the fused [gate | up] output
// of the up_gate projection (per-rank intermediate I).
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

struct SiluAndMul {
  static constexpr std::string_view kind = "silu_and_mul";
  static constexpr Family family = Family::memory;

  struct Config {
    COSTDSL_FIELDS((Dtype, dtype), (Dim, intermediate));
  };
  struct Input {
    COSTDSL_FIELDS((std::uint64_t, tokens));
  };
  static constexpr std::array<std::string_view, 1> axes{"tokens"};

  static std::array<double, 1> point(const Config&, const Input& in) { return {double(in.tokens)}; }

  // Per output element, silu(g)·u = g·u / (1 + exp(−g)): exp, add, multiply, divide = 4 flops.
  static double flops(const Config& c, const Input& in) { return 4.0 * double(in.tokens) * double(c.intermediate); }
  // Read g and u (2·I per token), write y (I per token).
  static double bytes(const Config& c, const Input& in) {
    return bytes_per_element(c.dtype) * 3.0 * double(in.tokens) * double(c.intermediate);
  }

  static Metrics roofline(const Roofline& rf, const Config& c, const Input& in) {
    return rf.memory_bound(flops(c, in), bytes(c, in), ElementwiseKind::activation);
  }
  // The math runs in fp32 on the CUDA cores whatever the storage dtype.
  static double lower_bound_s(const Roofline& rf, const Config& c, const Input& in) {
    return rf.lower_bound_s(flops(c, in), bytes(c, in), Dtype::fp32);
  }

  static std::vector<Input> sweep(const Config&) {
    std::vector<Input> grid;
    for (std::uint32_t t : token_axis) grid.push_back({t});
    return grid;
  }
  static std::vector<std::string> default_backends() { return {"costdsl_cuda", "flashinfer"}; }

  static void validate(const Config& c) {
    if (c.intermediate == 0 || c.intermediate > (1u << 20))
      throw ConfigError(
          costdsl::detail::str("silu_and_mul: intermediate ", c.intermediate.value, " must be in 1..", 1u << 20));
  }
};

}  // namespace costdsl::kernels

COSTDSL_KERNEL_COMPILED_ONCE(SiluAndMul);
