#pragma once
// L1 grouped_gemm: the routed MoE experts of one rank. Each active expert e computes
// Y_e[m_e, n] = X_e[m_e, k] · W_e[n, k]^T in one grouped launch; Σ m_e = tokens.
#include <algorithm>
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

struct GroupedGemm {
  static constexpr std::string_view kind = "grouped_gemm";
  static constexpr Family family = Family::gemm;

  struct Config {
    COSTDSL_FIELDS((Dtype, dtype), (Dim, num_experts), (Dim, n), (Dim, k));
  };
  // tokens: routed token-rows on this rank (tokens·top_k routed here).
  // active_experts: experts with ≥ 1 row; 0 = min(tokens, num_experts) (even routing).
  struct Input {
    COSTDSL_FIELDS((std::uint64_t, tokens), (std::uint64_t, active_experts));
  };
  // The profile measures even routing, so only the row count is an axis.
  static constexpr std::array<std::string_view, 1> axes{"tokens"};
  // Even routing (MLA's absorbed BMMs: one group per head) is the analytic memo's count;
  // a routed load's active experts take the general path.
  static std::uint64_t memo_count(const Config&, const Input& in) noexcept {
    return in.active_experts == 0 ? in.tokens : costdsl::detail::no_memo_count;
  }

  static std::array<double, 1> point(const Config&, const Input& in) { return {double(in.tokens)}; }

  // Experts that read their weights this call (an expert with no rows is skipped).
  static double active(const Config& c, const Input& in) {
    const std::uint64_t cap = std::min<std::uint64_t>(in.tokens, c.num_experts);
    if (in.active_experts > cap)
      throw InputError(costdsl::detail::str("grouped_gemm: active_experts ", in.active_experts, " exceeds min(tokens ", in.tokens, ", num_experts ", c.num_experts.value, ") = ", cap));
    return double(in.active_experts == 0 ? cap : in.active_experts);
  }

  // 2·m·n·k summed over experts = 2·tokens·n·k.
  static double flops(const Config& c, const Input& in) { return 2.0 * double(in.tokens) * double(c.n) * double(c.k); }
  // Sub-16-bit GEMMs read narrow operands and write bf16; others write their own dtype.
  static Dtype out_dtype(const Config& c) { return bytes_per_element(c.dtype) < 2 ? Dtype::bf16 : c.dtype; }
  // a·tokens·k (activations) + w·active·n·k (each active expert's weights once) + out·tokens·n.
  static double bytes(const Config& c, const Input& in) {
    const double m = double(in.tokens), n = double(c.n), k = double(c.k);
    return bytes_per_element(c.dtype) * (m * k + active(c, in) * n * k) + bytes_per_element(out_dtype(c)) * m * n;
  }

  static Metrics roofline(const Roofline& rf, const Config& c, const Input& in) {
    if (in.tokens == 0) return Metrics{};  // no groups: nothing launches
    return rf.grouped_gemm(double(in.tokens), double(c.n), double(c.k), static_cast<int>(active(c, in)), c.dtype,
                           c.dtype, out_dtype(c));
  }
  static double lower_bound_s(const Roofline& rf, const Config& c, const Input& in) {
    return rf.lower_bound_s(flops(c, in), bytes(c, in), c.dtype);
  }

  // Decode sizes 1..16 then the token axis, each with even routing.
  static std::vector<Input> sweep(const Config&) {
    std::vector<Input> grid;
    for (std::uint32_t m : gemm_m_axis()) grid.push_back({m, 0});
    return grid;
  }
  static std::vector<std::string> default_backends() { return {"cutlass"}; }

  static void validate(const Config& c) {
    auto check = [](std::string_view field, std::uint64_t v, std::uint64_t max) {
      if (v == 0 || v > max) throw ConfigError(costdsl::detail::str("grouped_gemm: ", field, " ", v, " must be in 1..", max));
    };
    check("num_experts", c.num_experts, 16384);  // the largest MoE ships 512 experts
    check("n", c.n, 1u << 20);
    check("k", c.k, 1u << 20);
  }
};

}  // namespace costdsl::kernels

COSTDSL_KERNEL_COMPILED_ONCE(GroupedGemm);
