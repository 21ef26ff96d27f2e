#pragma once
// L1 rope: rotary position embedding applied in place to q and k of each token
// (per-rank heads), NeoX or GPT-J pairing alike: each pair (x1, x2) rotates by the
// position's angle.
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

struct Rope {
  static constexpr std::string_view kind = "rope";
  static constexpr Family family = Family::memory;

  struct Config {
    COSTDSL_FIELDS((Dtype, dtype), (Dim, num_qo_heads), (Dim, num_kv_heads), (Dim, head_dim));
  };
  struct Input {
    COSTDSL_FIELDS((std::uint64_t, tokens));
  };
  static constexpr std::array<std::string_view, 1> axes{"tokens"};

  static std::array<double, 1> point(const Config&, const Input& in) { return {double(in.tokens)}; }

  // Elements rotated per token: every q and k head.
  static double rotated(const Config& c) { return double(c.num_qo_heads + c.num_kv_heads) * double(c.head_dim); }
  // Per pair: x1·cos − x2·sin, x2·cos + x1·sin = 6 flops, i.e. 3 per element.
  static double flops(const Config& c, const Input& in) { return 3.0 * double(in.tokens) * rotated(c); }
  // q and k read and written in place (2 per element) + the cos/sin cache row
  // (head_dim/2 of each per token) + the int64 position of each token.
  static double bytes(const Config& c, const Input& in) {
    const double t = double(in.tokens);
    return bytes_per_element(c.dtype) * t * (2.0 * rotated(c) + double(c.head_dim)) + 8.0 * t;
  }

  static Metrics roofline(const Roofline& rf, const Config& c, const Input& in) {
    return rf.memory_bound(flops(c, in), bytes(c, in), ElementwiseKind::rope);
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
    auto check = [](std::string_view field, std::uint64_t v, std::uint64_t max) {
      if (v == 0 || v > max) throw ConfigError(costdsl::detail::str("rope: ", field, " ", v, " must be in 1..", max));
    };
    check("num_qo_heads", c.num_qo_heads, 1024);
    check("num_kv_heads", c.num_kv_heads, 1024);
    check("head_dim", c.head_dim, 1024);
    if (c.head_dim % 2 != 0)
      throw ConfigError(costdsl::detail::str("rope: head_dim ", c.head_dim.value, " must be even (rope rotates pairs)"));
  }
};

}  // namespace costdsl::kernels

COSTDSL_KERNEL_COMPILED_ONCE(Rope);
