#pragma once
// L1 attn_prefill: causal GQA attention of one prefill chunk over its cached prefix
// (per rank). `append` new query rows attend to `prefix` cached keys plus the causal
// half of their own keys; `batch` identical chunks sum into the one prefill slot.
#include <algorithm>
#include <array>
#include <string>
#include <vector>

#include "costdsl/detail/str.hpp"
#include "costdsl/dim.hpp"
#include "costdsl/dtype.hpp"
#include "costdsl/kernel_def.hpp"
#include "costdsl/metrics.hpp"
#include "costdsl/reflect.hpp"

namespace costdsl::kernels {

struct AttnPrefill {
  static constexpr std::string_view kind = "attn_prefill";
  static constexpr Family family = Family::attention;

  struct Config {
    BOOST_HANA_DEFINE_STRUCT(Config, (Dtype, dtype), (Dim, num_qo_heads), (Dim, num_kv_heads), (Dim, head_dim));
  };
  struct Input {
    BOOST_HANA_DEFINE_STRUCT(Input, (std::uint64_t, batch), (std::uint64_t, prefix), (std::uint64_t, append));
  };
  // The table is measured per chunk (batch = 1) over (prefix, append).
  static constexpr std::array<std::string_view, 2> axes{"prefix", "append"};

  static std::array<double, 2> point(const Config&, const Input& in) { return {double(in.prefix), double(in.append)}; }
  // Causal work of a chunk is append·(prefix + append/2) query-key pairs, so the cache
  // axes A = prefix + append/2, B = append make work = A·B (product off-grid).
  static std::array<double, 2> to_cache(const std::array<double, 2>& p) { return {p[0] + p[1] / 2, p[1]}; }
  static double calls(const Input& in) { return double(in.batch); }
  static constexpr interp::OffGrid off_grid = interp::OffGrid::product;

  // Query-key pairs of one chunk (the causal triangle counted as append²/2).
  static double pairs(const Input& in) { return double(in.append) * (double(in.prefix) + double(in.append) / 2); }
  // QK^T and PV: 2 flops per multiply-add, head_dim each, per qo head: 4·qo·hd per pair.
  static double flops(const Config& c, const Input& in) {
    return double(in.batch) * 4.0 * double(c.num_qo_heads) * double(c.head_dim) * pairs(in);
  }
  // Per chunk: read Q and write O (append rows × qo heads) + read K and V of all
  // prefix + append keys (kv heads); a chunk with no query rows launches nothing.
  static double bytes(const Config& c, const Input& in) {
    if (in.append == 0) return 0;
    const double hd = double(c.head_dim);
    const double q_o = 2.0 * double(in.append) * double(c.num_qo_heads) * hd;
    const double k_v = 2.0 * (double(in.prefix) + double(in.append)) * double(c.num_kv_heads) * hd;
    return double(in.batch) * bytes_per_element(c.dtype) * (q_o + k_v);
  }

  // One chunk's roofline, times the identical chunks (as the measured path does).
  static Metrics roofline(const Roofline& rf, const Config& c, const Input& in) {
    if (in.batch == 0 || in.append == 0) return Metrics{};
    const Input one{1, in.prefix, in.append};
    return algebra::scale(rf.attention_prefill(flops(c, one), bytes(c, one), c.dtype), double(in.batch));
  }
  static double lower_bound_s(const Roofline& rf, const Config& c, const Input& in) {
    return rf.lower_bound_s(flops(c, in), bytes(c, in), c.dtype);
  }

  // The measured (prefix, append) chunks: a product grid on the cache axes, so every
  // query between measured points has its four interpolation corners. (A grid on
  // (prefix, append) would give each cell its own A = prefix + append/2 and leave the
  // (A, B) table one cell per row: queries between the prefixes found no corners.)
  //   B = append: powers of two 32..32768 and 3·2^k 384..24576 (18 token-axis points);
  //   A: powers of two 16..131072 and 3·2^k 192..98304 (24 points, ⊇ every B/2);
  // keeping A ≥ B/2 (prefix ≥ 0): 279 chunks, prefix = 0 for every append included,
  // prefixes up to 128k tokens (longer ones extrapolate as A·B).
  static std::vector<std::array<std::uint64_t, 2>> sweep_chunks() {
    auto half_octaves = [](std::uint64_t lo, std::uint64_t half_lo, std::uint64_t hi) {
      std::vector<std::uint64_t> v;
      for (std::uint64_t x = lo; x <= hi; x *= 2) v.push_back(x);
      for (std::uint64_t x = half_lo; x <= hi; x *= 2) v.push_back(x);
      std::sort(v.begin(), v.end());
      return v;
    };
    std::vector<std::array<std::uint64_t, 2>> chunks;
    for (std::uint64_t b : half_octaves(32, 384, 32768))
      for (std::uint64_t a : half_octaves(16, 192, 131072))
        if (2 * a >= b) chunks.push_back({a - b / 2, b});
    std::sort(chunks.begin(), chunks.end());
    return chunks;
  }
  static std::vector<Input> sweep(const Config&) {
    std::vector<Input> grid;
    for (const auto& [prefix, append] : sweep_chunks()) grid.push_back({1, prefix, append});
    return grid;
  }
  static std::vector<std::string> default_backends() { return {"costdsl_cuda", "flashinfer"}; }

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
