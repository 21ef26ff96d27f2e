#pragma once
// L1 attn_decode: paged-KV GQA decode attention (per rank). Every decode request adds
// one query row that attends to its whole KV history; all requests of a step collapse
// into one cell (batch = request count, total_kv = Σ KV lengths).
#include <array>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "costdsl/detail/str.hpp"
#include "costdsl/dim.hpp"
#include "costdsl/dtype.hpp"
#include "costdsl/kernel_def.hpp"
#include "costdsl/kernels/detail/compiled_once.hpp"
#include "costdsl/reflect.hpp"

namespace costdsl::kernels {

struct AttnDecode {
  static constexpr std::string_view kind = "attn_decode";
  static constexpr Family family = Family::attention;

  struct Config {
    COSTDSL_FIELDS((Dtype, kv_dtype), (Dim, num_qo_heads), (Dim, num_kv_heads), (Dim, head_dim));
  };
  struct Input {
    COSTDSL_FIELDS((std::uint64_t, batch), (std::uint64_t, total_kv));
  };
  static constexpr std::array<std::string_view, 2> axes{"batch", "total_kv"};

  static std::array<double, 2> point(const Config&, const Input& in) { return {double(in.batch), double(in.total_kv)}; }
  static Input input_at(const Config&, const std::array<double, 2>& at) {
    return {costdsl::detail::count_at(at[0]), costdsl::detail::count_at(at[1])};
  }
  // As attn_prefill's: the nearest measured head configuration of the same KV dtype.
  static double transfer_distance(const Config& a, const Config& b) {
    if (a.kv_dtype != b.kv_dtype) return std::numeric_limits<double>::infinity();
    return costdsl::detail::head_distance(a.num_qo_heads, a.num_kv_heads, a.head_dim, b.num_qo_heads, b.num_kv_heads,
                                          b.head_dim);
  }
  // Requests and KV tokens are additive loads: extend off-grid with per-axis slopes.
  static constexpr interp::OffGrid off_grid = interp::OffGrid::weighted;
  // Requests and work add up: interpolate linearly (see Kernel::fit).
  static constexpr std::array<interp::AxisScale, 2> axis_scales{interp::AxisScale::linear, interp::AxisScale::linear};

  // q and o stay 16-bit activations when the cache is quantized (fp8/fp4 KV).
  static Dtype act_dtype(const Config& c) { return bytes_per_element(c.kv_dtype) < 2 ? Dtype::bf16 : c.kv_dtype; }
  static bool idle(const Input& in) { return in.batch == 0 || in.total_kv == 0; }

  // QK^T and PV over every cached token: 4·qo·hd flops per token.
  static double flops(const Config& c, const Input& in) {
    if (idle(in)) return 0;
    return 4.0 * double(c.num_qo_heads) * double(c.head_dim) * double(in.total_kv);
  }
  // K and V of every cached token (kv heads, kv_dtype) + one q row read and one o row
  // written per request (qo heads, activation dtype).
  static double bytes(const Config& c, const Input& in) {
    if (idle(in)) return 0;
    const double hd = double(c.head_dim);
    return bytes_per_element(c.kv_dtype) * 2.0 * double(in.total_kv) * double(c.num_kv_heads) * hd +
           bytes_per_element(act_dtype(c)) * 2.0 * double(in.batch) * double(c.num_qo_heads) * hd;
  }

  // Quantized KV is dequantized on load: the math runs at the activation dtype. The
  // roofline sees the requests (one work tile per request and KV head), not just bytes.
  static AttentionShape shape(const Config& c, const Input& in) {
    const double avg_kv = in.batch == 0 ? 0 : double(in.total_kv) / double(in.batch);
    return {double(in.batch),       avg_kv,           1,
            double(c.num_qo_heads), double(c.num_kv_heads), double(c.head_dim),
            double(c.head_dim),     act_dtype(c)};
  }
  static Metrics roofline(const Roofline& rf, const Config& c, const Input& in) {
    return rf.attention_decode(shape(c, in), flops(c, in), bytes(c, in));
  }
  static double lower_bound_s(const Roofline& rf, const Config& c, const Input& in) {
    return rf.lower_bound_s(flops(c, in), bytes(c, in), act_dtype(c));
  }

  // batch 1..256 × average KV 1..131072 (powers of two), total_kv = batch·avg. The
  // cells share one total_kv axis, so the table is a band of a product grid; a query
  // outside the band finds no interpolation corners, so the band spans every average a
  // real step has (1 token .. 128k contexts), not just 128..32768. Cells whose cache
  // exceeds sweep_max_kv_bytes are left out so every point fits an 80 GiB GPU: 162 at most.
  static constexpr double sweep_max_kv_bytes = 64.0 * (1ull << 30);
  static std::vector<Input> sweep_cells(double kv_bytes_per_token) {
    std::vector<Input> grid;
    for (std::uint64_t b = 1; b <= 256; b *= 2)
      for (std::uint64_t avg = 1; avg <= 131072; avg *= 2)
        if (kv_bytes_per_token * double(b * avg) <= sweep_max_kv_bytes) grid.push_back({b, b * avg});
    return grid;
  }
  static std::vector<Input> sweep(const Config& c) {
    return sweep_cells(bytes_per_element(c.kv_dtype) * 2.0 * double(c.num_kv_heads) * double(c.head_dim));
  }
  static std::vector<std::string> default_backends() {
    return {"costdsl_cuda", "flashinfer", "sglang", "vllm", "trtllm"};
  }

  static void validate(const Config& c) {
    auto check = [](std::string_view field, std::uint64_t v, std::uint64_t max) {
      if (v == 0 || v > max) throw ConfigError(costdsl::detail::str("attn_decode: ", field, " ", v, " must be in 1..", max));
    };
    check("num_qo_heads", c.num_qo_heads, 1024);
    check("num_kv_heads", c.num_kv_heads, 1024);
    check("head_dim", c.head_dim, 1024);
    if (c.num_qo_heads % c.num_kv_heads != 0)
      throw ConfigError(costdsl::detail::str("attn_decode: num_kv_heads ", c.num_kv_heads.value, " must divide num_qo_heads ", c.num_qo_heads.value, " (GQA groups)"));
  }
};

}  // namespace costdsl::kernels

COSTDSL_KERNEL_COMPILED_ONCE(AttnDecode);
