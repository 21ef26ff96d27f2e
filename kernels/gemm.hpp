#pragma once
// L1 gemm: Y[m, n] = X[m, k] · W[n, k]^T, one dense linear layer (per rank).
#include <array>
#include <string>
#include <vector>

#include "costdsl/dim.hpp"
#include "costdsl/dtype.hpp"
#include "costdsl/kernel_def.hpp"
#include "costdsl/reflect.hpp"
#include "costdsl/token_axis.hpp"

namespace costdsl::kernels {

struct Gemm {
  static constexpr std::string_view kind = "gemm";
  static constexpr Family family = Family::gemm;

  struct Config {
    BOOST_HANA_DEFINE_STRUCT(Config, (Dtype, dtype), (Dim, n), (Dim, k));
  };
  struct Input {
    BOOST_HANA_DEFINE_STRUCT(Input, (std::uint64_t, m));
  };
  static constexpr std::array<std::string_view, 1> axes{"m"};

  static std::array<double, 1> point(const Config&, const Input& in) { return {double(in.m)}; }

  static double flops(const Config& c, const Input& in) { return 2.0 * double(in.m) * double(c.n) * double(c.k); }
  // fp8 GEMMs read fp8 operands and write bf16; others write their own dtype.
  static Dtype out_dtype(const Config& c) { return c.dtype == Dtype::fp8 ? Dtype::bf16 : c.dtype; }
  static double bytes(const Config& c, const Input& in) {
    if (in.m == 0) return 0;  // no launch: the weights are not read either
    const double m = double(in.m), n = double(c.n), k = double(c.k);
    return bytes_per_element(c.dtype) * (m * k + n * k) + bytes_per_element(out_dtype(c)) * m * n;
  }

  static Metrics roofline(const Roofline& rf, const Config& c, const Input& in) {
    return rf.gemm(double(in.m), double(c.n), double(c.k), c.dtype, c.dtype, out_dtype(c));
  }
  static double lower_bound_s(const Roofline& rf, const Config& c, const Input& in) {
    return rf.lower_bound_s(flops(c, in), bytes(c, in), c.dtype);
  }

  static std::vector<Input> sweep(const Config&) {
    std::vector<Input> grid;
    for (std::uint32_t m : gemm_m_axis()) grid.push_back({m});
    return grid;
  }
  static std::vector<std::string> default_backends() { return {"cublaslt"}; }

  static void validate(const Config& c) {
    if (c.n == 0 || c.k == 0)
      throw ConfigError("gemm: n " + std::to_string(c.n.value) + " and k " + std::to_string(c.k.value) +
                        " must both be at least 1");
  }
};

}  // namespace costdsl::kernels
