#pragma once
// L1 fused_add_rms_norm: r ← x + r; x ← rms_norm(r) · w, in one kernel (both in place).
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

struct FusedAddRmsNorm {
  static constexpr std::string_view kind = "fused_add_rms_norm";
  static constexpr Family family = Family::memory;

  struct Config {
    COSTDSL_FIELDS((Dtype, dtype), (Dim, hidden));
  };
  struct Input {
    COSTDSL_FIELDS((std::uint64_t, tokens));
  };
  static constexpr std::array<std::string_view, 1> axes{"tokens"};

  static std::array<double, 1> point(const Config&, const Input& in) { return {double(in.tokens)}; }

  // Per element: the add (1), square + accumulate (2), scale by rsqrt and w (2) = 5 flops.
  static double flops(const Config& c, const Input& in) { return 5.0 * double(in.tokens) * double(c.hidden); }
  // Read x and r, write x and r (4·tokens·hidden) + the weight once; nothing when no row runs.
  static double bytes(const Config& c, const Input& in) {
    if (in.tokens == 0) return 0;
    return bytes_per_element(c.dtype) * (4.0 * double(in.tokens) * double(c.hidden) + double(c.hidden));
  }

  static Metrics roofline(const Roofline& rf, const Config& c, const Input& in) {
    return rf.memory_bound(flops(c, in), bytes(c, in), ElementwiseKind::norm);
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
    if (c.hidden == 0 || c.hidden > (1u << 20))
      throw ConfigError(costdsl::detail::str("fused_add_rms_norm: hidden ", c.hidden.value, " must be in 1..", 1u << 20));
  }
};

}  // namespace costdsl::kernels

COSTDSL_KERNEL_COMPILED_ONCE(FusedAddRmsNorm);
