#pragma once
// L1 fused_moe: the routed experts of one EP rank as SGLang and vLLM launch them, one
// fused module over this rank's routed token-rows: token sort and align, the gate/up
// GEMM over every local expert, SiLU·mul, the down GEMM and the weighted sum of each
// token's local expert outputs. Measured as one unit (aiconfigurator's moe tables);
// its analytic form is the grouped-GEMM decomposition (grouped_gemm up_gate,
// silu_and_mul, grouped_gemm down) on the same rows.
#include <algorithm>
#include <array>
#include <string>
#include <utility>
#include <vector>

#include "costdsl/dim.hpp"
#include "costdsl/dtype.hpp"
#include "costdsl/expert_load.hpp"
#include "costdsl/kernel_def.hpp"
#include "costdsl/kernels/detail/compiled_once.hpp"
#include "costdsl/reflect.hpp"
#include "costdsl/token_axis.hpp"

namespace costdsl::kernels {

struct FusedMoe {
  static constexpr std::string_view kind = "fused_moe";
  static constexpr Family family = Family::gemm;

  // moe_intermediate: this rank's share of one expert's intermediate size (all of it under
  // EP); num_experts: the experts on this rank (num_experts / ep). dtype: the activations
  // (and the tables' quantization); weight_dtype: the stored expert weights, equal to dtype
  // but for weight-only formats (gpt-oss: mxfp4 weights, bf16 activations; aiconfigurator's
  // w4a16_mxfp4 rows). A table without the weight_dtype column measured weights in dtype.
  // expert_load: the routing the table measured the kernel under (expert_load.hpp); the
  // roofline takes its rows and active experts from the input instead.
  struct Config {
    COSTDSL_FIELDS((Dtype, dtype), (Dim, hidden), (Dim, moe_intermediate), (Dim, num_experts),
                   (Dim, top_k), (Dtype, weight_dtype), (ExpertLoad, expert_load));
    static constexpr std::array<std::pair<std::string_view, std::string_view>, 1> column_defaults{
        {{"weight_dtype", "dtype"}}};
  };
  // rows: token-rows routed to this rank (tokens · top_k / ep on average).
  // active_experts: local experts with ≥ 1 row; 0 = min(rows, num_experts) (even routing).
  struct Input {
    COSTDSL_FIELDS((std::uint64_t, rows), (std::uint64_t, active_experts));
  };
  // The analytic memo's count: one per (rows, active experts), active_experts being at most
  // num_experts (a routed EP rank's load: the roofline of a batch's few distinct rank loads,
  // asked again every iteration the batch stays).
  static std::uint64_t memo_count(const Config& c, const Input& in) noexcept {
    return in.rows * (c.num_experts.value + 1) + in.active_experts;
  }
  // Tables are measured with balanced routing, so only the row count is an axis.
  static constexpr std::array<std::string_view, 1> axes{"rows"};

  static std::array<double, 1> point(const Config&, const Input& in) { return {double(in.rows)}; }
  // Rows add up: interpolate linearly (see Kernel::fit).
  static constexpr std::array<interp::AxisScale, 1> axis_scales{interp::AxisScale::linear};

  static double active(const Config& c, const Input& in) {
    const std::uint64_t cap = std::min<std::uint64_t>(in.rows, c.num_experts);
    if (in.active_experts > cap)
      throw InputError("fused_moe: active_experts " + std::to_string(in.active_experts) + " exceeds min(rows " +
                       std::to_string(in.rows) + ", num_experts " + std::to_string(c.num_experts.value) +
                       ") = " + std::to_string(cap));
    return double(in.active_experts == 0 ? cap : in.active_experts);
  }
  // Narrow expert weights write bf16 intermediates.
  static Dtype out_dtype(const Config& c) { return bytes_per_element(c.dtype) < 2 ? Dtype::bf16 : c.dtype; }

  // Gate/up (2·rows·h·2i), SiLU·mul (4 per intermediate element), down (2·rows·i·h).
  static double flops(const Config& c, const Input& in) {
    const double r = double(in.rows), h = double(c.hidden), i = double(c.moe_intermediate);
    return 6.0 * r * h * i + 4.0 * r * i;
  }
  // Per GEMM: the rows' activations, each active expert's weights once (at weight_dtype,
  // scales included), the outputs; SiLU·mul reads the 2i-wide gate/up output and writes i.
  // Nothing launches without rows.
  static double bytes(const Config& c, const Input& in) {
    if (in.rows == 0) return 0;
    const double r = double(in.rows), h = double(c.hidden), i = double(c.moe_intermediate), e = active(c, in);
    const double a = activation_bytes(c.dtype), o = bytes_per_element(out_dtype(c));
    // a·(activations + weights·w/a): with w = a (every arch but gpt-oss and int4 experts)
    // w/a is exactly 1 and the sums are the former ones bit for bit. An int4 kernel's
    // activations are 16-bit (activation_bytes).
    const double w_per_a = bytes_per_element(c.weight_dtype) / a;
    const double up = a * (r * h + e * 2 * i * h * w_per_a) + o * r * 2 * i;
    const double act = o * 3 * r * i;
    const double down = a * (r * i + e * h * i * w_per_a) + o * r * h;
    return up + act + down;
  }

  // Narrow weights under wide activations are dequantized in the GEMM's main loop: the
  // tensor cores run at the wider dtype (Roofline::compute_dtype).
  static Metrics roofline(const Roofline& rf, const Config& c, const Input& in) {
    if (in.rows == 0) return Metrics{};
    const double r = double(in.rows), h = double(c.hidden), i = double(c.moe_intermediate);
    const int e = static_cast<int>(active(c, in));
    const Dtype o = out_dtype(c);
    Metrics m = rf.grouped_gemm(r, 2 * i, h, e, c.dtype, c.weight_dtype, o);
    algebra::accumulate_sum(m, rf.memory_bound(4.0 * r * i, bytes_per_element(o) * 3 * r * i,
                                               ElementwiseKind::activation));
    algebra::accumulate_sum(m, rf.grouped_gemm(r, h, i, e, c.dtype, c.weight_dtype, o));
    return m;
  }
  static double lower_bound_s(const Roofline& rf, const Config& c, const Input& in) {
    return rf.lower_bound_s(flops(c, in), bytes(c, in), Roofline::compute_dtype(c.dtype, c.weight_dtype));
  }

  // Decode sizes 1..16 then the token axis, each with even routing.
  static std::vector<Input> sweep(const Config&) {
    std::vector<Input> grid;
    for (std::uint32_t m : gemm_m_axis()) grid.push_back({m, 0});
    return grid;
  }
  static std::vector<std::string> default_backends() { return {"sglang", "vllm", "trtllm"}; }

  static void validate(const Config& c) {
    auto check = [](std::string_view field, std::uint64_t v, std::uint64_t max) {
      if (v == 0 || v > max)
        throw ConfigError("fused_moe: " + std::string(field) + " " + std::to_string(v) + " must be in 1.." +
                          std::to_string(max));
    };
    check("hidden", c.hidden, 1u << 20);
    check("moe_intermediate", c.moe_intermediate, 1u << 20);
    check("num_experts", c.num_experts, 16384);  // the largest MoE ships 512 experts
    check("top_k", c.top_k, 1024);
  }
};

}  // namespace costdsl::kernels

COSTDSL_KERNEL_COMPILED_ONCE(FusedMoe);
