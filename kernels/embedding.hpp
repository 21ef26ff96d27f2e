#pragma once
// L1 embedding: out[t, :] = table[id[t], :], one gathered row per token.
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

struct Embedding {
  static constexpr std::string_view kind = "embedding";
  static constexpr Family family = Family::memory;

  // vocab is identity only (the table size); a gather touches tokens rows of it.
  struct Config {
    COSTDSL_FIELDS((Dtype, dtype), (Dim, vocab), (Dim, hidden));
  };
  struct Input {
    COSTDSL_FIELDS((std::uint64_t, tokens));
  };
  static constexpr std::array<std::string_view, 1> axes{"tokens"};

  static std::array<double, 1> point(const Config&, const Input& in) { return {double(in.tokens)}; }

  // A pure copy: no arithmetic.
  static double flops(const Config&, const Input&) { return 0; }
  // The int32 token id, the gathered row read and the output row written.
  static double bytes(const Config& c, const Input& in) {
    const double t = double(in.tokens);
    return 4.0 * t + bytes_per_element(c.dtype) * 2.0 * t * double(c.hidden);
  }

  static Metrics roofline(const Roofline& rf, const Config& c, const Input& in) {
    return rf.memory_bound(flops(c, in), bytes(c, in), ElementwiseKind::embedding);
  }
  static double lower_bound_s(const Roofline& rf, const Config& c, const Input& in) {
    return rf.lower_bound_s(flops(c, in), bytes(c, in), Dtype::fp32);  // no math: fp32 just avoids a missing path
  }

  static std::vector<Input> sweep(const Config&) {
    std::vector<Input> grid;
    for (std::uint32_t t : token_axis) grid.push_back({t});
    return grid;
  }
  static std::vector<std::string> default_backends() { return {"costdsl_cuda", "torch"}; }

  static void validate(const Config& c) {
    auto check = [](std::string_view field, std::uint64_t v, std::uint64_t max) {
      if (v == 0 || v > max) throw ConfigError(costdsl::detail::str("embedding: ", field, " ", v, " must be in 1..", max));
    };
    check("vocab", c.vocab, 1u << 24);
    check("hidden", c.hidden, 1u << 20);
  }
};

}  // namespace costdsl::kernels

COSTDSL_KERNEL_COMPILED_ONCE(Embedding);
