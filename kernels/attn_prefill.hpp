#pragma once
// L1 attn_prefill: causal GQA prefill attention of one batched launch (per rank):
// `batch` requests, each appending `append` new query rows to `prefix` cached keys. The
// launch's work is the sum of each request's causal work, append·(prefix + append/2)
// query-key pairs, never one long sequence's: many short prefills pay for their padded
// tiles (see Roofline::attention_prefill), not for a quadratic term they do not have.
#include <algorithm>
#include <array>
#include <limits>
#include <cmath>
#include <string>
#include <vector>

#include "costdsl/detail/str.hpp"
#include "costdsl/dim.hpp"
#include "costdsl/dtype.hpp"
#include "costdsl/kernel_def.hpp"
#include "costdsl/kernels/detail/compiled_once.hpp"
#include "costdsl/metrics.hpp"
#include "costdsl/reflect.hpp"

namespace costdsl::kernels {

struct AttnPrefill {
  static constexpr std::string_view kind = "attn_prefill";
  static constexpr Family family = Family::attention;

  // window: a sliding-window layer's reach (each query attends to at most `window` keys,
  // itself included); 0 = full causal attention. The tables hold full causal prefills
  // only, so window is no table column and a windowed config evaluates on the roofline.
  struct Config {
    COSTDSL_FIELDS((Dtype, dtype), (Dim, num_qo_heads), (Dim, num_kv_heads), (Dim, head_dim),
                   (std::uint32_t, window));
    static constexpr std::array<std::string_view, 1> untabled{"window"};
  };
  static bool tables_hold(const Config& c) { return c.window == 0; }
  struct Input {
    COSTDSL_FIELDS((std::uint64_t, batch), (std::uint64_t, prefix), (std::uint64_t, append));
  };
  // The table holds fresh prefills (no cached prefix) of `batch` requests × `append`
  // tokens, as serving frameworks launch them and aiconfigurator measures them.
  static constexpr std::array<std::string_view, 2> axes{"batch", "append"};

  // A request with a cached prefix is looked up as the fresh prefill of equal causal
  // work: append_eq²/2 = append·(prefix + append/2). Its extra prefix KV reads are not in
  // the table (the roofline has them); a documented approximation for chunked prefill.
  static double equivalent_append(double prefix, double append) { return std::sqrt(append * (append + 2 * prefix)); }
  static std::array<double, 2> point(const Config& c, const Input& in) {
    if (c.window == 0) return {double(in.batch), equivalent_append(double(in.prefix), double(in.append))};
    return {double(in.batch), std::sqrt(2 * pairs(c, in))};  // equal work, as above (never a table: untabled)
  }
  // Cache axes (requests, causal pairs per request): the work is their product, so off
  // the grid both scale it (a 32k fresh prefill extends the 16k one by 4x, not 2x).
  static std::array<double, 2> to_cache(const std::array<double, 2>& p) { return {p[0], p[1] * p[1] / 2}; }
  // The fresh prefill a cache point stands for (point and to_cache undone): the call whose
  // roofline time a missing table cell's estimate scales (see KernelDef's input_at).
  static Input input_at(const Config&, const std::array<double, 2>& at) {
    return {costdsl::detail::count_at(at[0]), 0, costdsl::detail::count_at(std::sqrt(2 * std::max(at[1], 0.0)))};
  }
  // A head configuration no table holds answers from the nearest measured one of its
  // dtype, scaled by the roofline (Kernel: SCALED). How a kernel runs follows its GQA
  // group and head_dim (tile shapes) more than its head count (more of the same tiles).
  static double transfer_distance(const Config& a, const Config& b) {
    if (a.dtype != b.dtype || a.window != b.window) return std::numeric_limits<double>::infinity();
    return costdsl::detail::head_distance(a.num_qo_heads, a.num_kv_heads, a.head_dim, b.num_qo_heads, b.num_kv_heads,
                                          b.head_dim);
  }
  static constexpr interp::OffGrid off_grid = interp::OffGrid::product;
  // Requests and work add up: interpolate linearly (see Kernel::fit).
  static constexpr std::array<interp::AxisScale, 2> axis_scales{interp::AxisScale::linear, interp::AxisScale::linear};

  // Query-key pairs of one request (its causal triangle counted as append²/2).
  static double pairs(const Input& in) { return double(in.append) * (double(in.prefix) + double(in.append) / 2); }
  // With a window W query i (0-based in the chunk) sees min(prefix + i + 1/2, W) keys on
  // the same count: the first n = clamp(W - prefix, 0, append) queries see the causal
  // prefix + i + 1/2, every later one W.
  static double pairs(const Config& c, const Input& in) {
    if (c.window == 0) return pairs(in);
    const double w = c.window, p = double(in.prefix), a = double(in.append);
    const double n = std::clamp(w - p, 0.0, a);
    return n * (p + n / 2) + (a - n) * w;
  }
  // K/V rows a request reads: its appended keys and the part of its prefix in reach.
  static double keys_read(const Config& c, const Input& in) {
    const double p = double(in.prefix);
    return (c.window == 0 ? p : std::min<double>(p, c.window)) + double(in.append);
  }
  // QK^T and PV: 2 flops per multiply-add, head_dim each, per qo head: 4·qo·hd per pair.
  static double flops(const Config& c, const Input& in) {
    return double(in.batch) * 4.0 * double(c.num_qo_heads) * double(c.head_dim) * pairs(c, in);
  }
  // Per request: read Q and write O (append rows × qo heads) + read K and V of every key
  // in reach (kv heads); a launch with no query rows reads nothing.
  static double bytes(const Config& c, const Input& in) {
    if (in.append == 0) return 0;
    const double hd = double(c.head_dim);
    const double q_o = 2.0 * double(in.append) * double(c.num_qo_heads) * hd;
    const double k_v = 2.0 * keys_read(c, in) * double(c.num_kv_heads) * hd;
    return double(in.batch) * bytes_per_element(c.dtype) * (q_o + k_v);
  }

  static AttentionShape shape(const Config& c, const Input& in) {
    return {double(in.batch),       double(in.prefix),  double(in.append),  double(c.num_qo_heads),
            double(c.num_kv_heads), double(c.head_dim), double(c.head_dim), c.dtype,
            double(c.window)};
  }
  static Metrics roofline(const Roofline& rf, const Config& c, const Input& in) {
    return rf.attention_prefill(shape(c, in), flops(c, in), bytes(c, in));
  }
  static double lower_bound_s(const Roofline& rf, const Config& c, const Input& in) {
    return rf.lower_bound_s(flops(c, in), bytes(c, in), c.dtype);
  }

  // What a profiler measures: one request (batch 1, no prefix) per point, append over
  // powers of two 32..32768 and 3·2^k 384..24576 (18 token-axis points).
  static std::vector<std::uint64_t> sweep_appends() {
    std::vector<std::uint64_t> v;
    for (std::uint64_t x = 32; x <= 32768; x *= 2) v.push_back(x);
    for (std::uint64_t x = 384; x <= 32768; x *= 2) v.push_back(x);
    std::sort(v.begin(), v.end());
    return v;
  }
  static std::vector<Input> sweep(const Config&) {
    std::vector<Input> grid;
    for (std::uint64_t a : sweep_appends()) grid.push_back({1, 0, a});
    return grid;
  }
  static std::vector<std::string> default_backends() {
    return {"costdsl_cuda", "flashinfer", "sglang", "vllm", "trtllm"};
  }

  static void validate(const Config& c) {
    auto check = [](std::string_view field, std::uint64_t v, std::uint64_t max) {
      if (v == 0 || v > max) throw ConfigError(costdsl::detail::str("attn_prefill: ", field, " ", v, " must be in 1..", max));
    };
    check("num_qo_heads", c.num_qo_heads, 1024);
    check("num_kv_heads", c.num_kv_heads, 1024);
    check("head_dim", c.head_dim, 1024);
    // GQA: each kv head serves a whole group of qo heads.
    if (c.num_qo_heads % c.num_kv_heads != 0)
      throw ConfigError(costdsl::detail::str("attn_prefill: num_kv_heads ", c.num_kv_heads.value, " must divide num_qo_heads ", c.num_qo_heads.value, " (GQA groups)"));
  }
};

}  // namespace costdsl::kernels

COSTDSL_KERNEL_COMPILED_ONCE(AttnPrefill);
