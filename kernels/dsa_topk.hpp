#pragma once
// L1 dsa_topk: the lightning indexer's selection (DeepSeek-V3.2, GLM-5; per rank): for
// every query, the topk highest of its fp32 indexer logits over the keys it sees, written
// as topk int32 cache slots (-1 past a short context): SGLang's fast_topk_transform_fused
// (the top-k and its page-table transform in one launch: sglang python/sglang/srt/layers/
// attention/nsa_backend.py, NSAIndexerMetadata.topk_transform, at commit 005e8bf). A row
// that sees no more than topk keys selects them all: it only writes its indices (the
// glm5_topk_module table measures such launches at ~0). A longer row runs a radix select
// over its logits, several passes each (`passes`): bandwidth-bound on the logits, so its
// cost grows with the keys seen.
#include <algorithm>
#include <array>
#include <cmath>
#include <string>
#include <vector>

#include "costdsl/dim.hpp"
#include "costdsl/dtype.hpp"
#include "costdsl/kernel_def.hpp"
#include "costdsl/kernels/detail/compiled_once.hpp"
#include "costdsl/kernels/detail/dsa_launch.hpp"
#include "costdsl/reflect.hpp"

namespace costdsl::kernels {

struct DsaTopk {
  static constexpr std::string_view kind = "dsa_topk";
  static constexpr Family family = Family::attention;

  struct Config {
    COSTDSL_FIELDS((Dim, topk));
  };
  using Input = detail::DsaLaunch;
  static constexpr std::array<std::string_view, 2> axes{"queries", "keys"};

  static std::array<double, 2> point(const Config&, const Input& in) { return detail::dsa_query_key_point(in); }
  static Input input_at(const Config&, const std::array<double, 2>& at) { return detail::dsa_decode_at(at); }
  static constexpr interp::OffGrid off_grid = interp::OffGrid::weighted;
  static constexpr std::array<interp::AxisScale, 2> axis_scales{interp::AxisScale::linear, interp::AxisScale::linear};

  // Logit reads per key of a selecting row: four rounds of an 8-bit radix select over the
  // 32-bit keys, each a histogram pass and a filter pass (an estimate: the glm5_topk_module
  // table's 4 × 8192-token prefill, 1.3 ms on a B200, is 8 reads of its logits at about
  // half the HBM roof).
  static constexpr double passes = 8;

  // Σ over the rows that see more than topk keys of the keys they see: the i-th appended
  // query sees prefix + i keys, so rows i > topk − prefix select.
  static double select_keys(const Config& c, const Input& in) {
    const double p = double(in.prefix), a = double(in.append), k = double(c.topk);
    const double first = std::max(1.0, std::floor(k - p) + 1);  // the first selecting row
    if (first > a) return 0;
    const double n = a - first + 1;
    return double(in.batch) * (n * p + (first + a) * n / 2);
  }
  // Per selected key and pass: a compare and a count.
  static double flops(const Config& c, const Input& in) { return 2.0 * passes * select_keys(c, in); }
  // The selecting rows' fp32 logits read `passes` times; per query its indices (at most
  // topk int32) written and the page-table slots they are transformed through read.
  static double bytes(const Config& c, const Input& in) {
    const double q = detail::dsa_queries(in);
    if (q == 0) return 0;
    return 4.0 * passes * select_keys(c, in) + 8.0 * q * double(c.topk);
  }

  static Metrics roofline(const Roofline& rf, const Config& c, const Input& in) {
    return rf.memory_bound(flops(c, in), bytes(c, in), ElementwiseKind::generic);
  }
  static double lower_bound_s(const Roofline& rf, const Config& c, const Input& in) {
    return rf.lower_bound_s(flops(c, in), bytes(c, in), Dtype::fp32);
  }

  static std::vector<Input> sweep(const Config&) { return detail::dsa_sweep(); }
  static std::vector<std::string> default_backends() { return {"sglang", "vllm", "trtllm"}; }

  static void validate(const Config& c) { detail::dsa_check(kind, "topk", c.topk, 1u << 20); }
};

}  // namespace costdsl::kernels

COSTDSL_KERNEL_COMPILED_ONCE(DsaTopk);
