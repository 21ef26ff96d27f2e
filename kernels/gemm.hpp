#pragma once
// L1 gemm: Y[m, n] = X[m, k] · W[n, k]^T, one dense linear layer (per rank), as the
// frameworks run it: an fp8 (or fp4) linear first quantizes its bf16 activations per
// token (one elementwise kernel), then runs the low-precision GEMM into bf16. Measured
// fp8 tables time both, so the kind's work and roofline count both. Where the kernel
// before it wrote its output quantized already (input_dtype = the weights' dtype: a
// per-tensor fp8 deployment with static activation scales, the quantize fused into a
// norm, SiLU·mul or attention epilogue), the GEMM runs alone: its rows are the measured
// sequence less the quantize kernel's own measured time (the importer's, data/profiles/README.md).
#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "costdsl/dim.hpp"
#include "costdsl/dtype.hpp"
#include "costdsl/kernel_def.hpp"
#include "costdsl/kernels/detail/compiled_once.hpp"
#include "costdsl/reflect.hpp"
#include "costdsl/token_axis.hpp"

namespace costdsl::kernels {

struct Gemm {
  static constexpr std::string_view kind = "gemm";
  static constexpr Family family = Family::gemm;

  // input_dtype: the activations as the launch receives them; bf16 for every GEMM a table
  // measured (a table without the column: bf16).
  struct Config {
    COSTDSL_FIELDS((Dtype, dtype), (Dim, n), (Dim, k), (Dtype, input_dtype, Dtype::bf16));
    static constexpr std::array<std::pair<std::string_view, std::string_view>, 1> column_default_values{
        {{"input_dtype", "bf16"}}};
  };
  struct Input {
    COSTDSL_FIELDS((std::uint64_t, m));
  };
  static constexpr std::array<std::string_view, 1> axes{"m"};
  // m at a multiple of 16 (full row tiles, the libraries' aligned kernels) and m one past
  // one (a tile of one row, often another kernel) lie on curves of their own; the measured
  // grids pair each edge with the row after it (256 and 257), so each curve is sampled on
  // its own (interp1d.hpp).
  static constexpr std::array<std::uint32_t, 1> axis_alignment{16};
  // Measured tables cover a grid of (n, k): a config between grid points interpolates
  // between the neighbouring configs' tables (Kernel binds them), off it extrapolates.
  static constexpr std::array<std::string_view, 2> interpolated_config{"n", "k"};

  static std::array<double, 1> point(const Config&, const Input& in) { return {double(in.m)}; }

  static double flops(const Config& c, const Input& in) { return 2.0 * double(in.m) * double(c.n) * double(c.k); }
  // Sub-16-bit GEMMs read narrow operands and write bf16; others write their own dtype.
  // The launch quantizes its activations unless they arrive in the weights' dtype.
  static bool quantizes(const Config& c) { return bytes_per_element(c.dtype) < 2 && c.input_dtype != c.dtype; }
  static Dtype out_dtype(const Config& c) { return bytes_per_element(c.dtype) < 2 ? Dtype::bf16 : c.dtype; }
  // The activation quantize before a narrow GEMM: read the bf16 X, write it narrow.
  static double quantize_bytes(const Config& c, const Input& in) {
    return quantizes(c) ? double(in.m) * double(c.k) * (bytes_per_element(Dtype::bf16) + bytes_per_element(c.dtype))
                        : 0.0;
  }
  static double bytes(const Config& c, const Input& in) {
    if (in.m == 0) return 0;  // no launch: the weights are not read either
    const double m = double(in.m), n = double(c.n), k = double(c.k);
    return bytes_per_element(c.dtype) * (m * k + n * k) + bytes_per_element(out_dtype(c)) * m * n +
           quantize_bytes(c, in);
  }

  static Metrics roofline(const Roofline& rf, const Config& c, const Input& in) {
    Metrics m = rf.gemm(double(in.m), double(c.n), double(c.k), c.dtype, c.dtype, out_dtype(c));
    if (quantizes(c) && in.m > 0)
      algebra::accumulate_sum(m, rf.memory_bound(0, quantize_bytes(c, in), ElementwiseKind::quantize));
    return m;
  }
  static double lower_bound_s(const Roofline& rf, const Config& c, const Input& in) {
    return rf.lower_bound_s(flops(c, in), bytes(c, in), c.dtype);
  }

  static std::vector<Input> sweep(const Config&) {
    std::vector<Input> grid;
    for (std::uint32_t m : gemm_m_axis()) grid.push_back({m});
    return grid;
  }
  static std::vector<std::string> default_backends() { return {"cublaslt", "sglang", "vllm", "trtllm"}; }

  static void validate(const Config& c) {
    if (c.n == 0 || c.k == 0)
      throw ConfigError("gemm: n " + std::to_string(c.n.value) + " and k " + std::to_string(c.k.value) +
                        " must both be at least 1");
    if (c.dtype == Dtype::int4)
      throw ConfigError("gemm: dtype int4: int4 weight-only is modelled for routed experts only (fused_moe)");
    if (c.input_dtype != Dtype::bf16 && !(c.input_dtype == c.dtype && c.dtype == Dtype::fp8))
      throw ConfigError("gemm: input_dtype " + std::string(name(c.input_dtype)) + " with dtype " +
                        std::string(name(c.dtype)) +
                        ": activations arrive in bf16, or already in per-tensor fp8 for an fp8 GEMM (a producer's "
                        "fused quantize)");
  }
};

}  // namespace costdsl::kernels

COSTDSL_KERNEL_COMPILED_ONCE(Gemm);
