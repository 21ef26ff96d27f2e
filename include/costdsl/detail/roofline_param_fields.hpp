#pragma once
// Every number of RooflineParams by its dotted path in roofline.json, with the rule its
// value keeps. Reading a whole file (parse_roofline_params) and applying a partial set
// (apply_roofline_params_patch: what the fitter sends `costdsl roofline serve`) both walk
// this one list, so a field's name and its rule are written once.
#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "costdsl/dtype.hpp"
#include "costdsl/roofline_params.hpp"

namespace costdsl::detail {

enum class ParamRule : std::uint8_t {
  positive,      // sizes and scales: finite and > 0
  non_negative,  // latencies and overheads: finite and >= 0
  efficiency,    // a fraction of a peak that is reached: in (0, 1]
  fraction,      // a share that may be 0: in [0, 1]
  exponent,      // a smooth-max exponent: finite and >= 1 (1 = the sum, inf = the max)
};

// The rule as a message states it ("field 'x' must be <rule>, got <value>").
constexpr std::string_view rule_text(ParamRule r) noexcept {
  switch (r) {
    case ParamRule::positive: return "a finite number > 0";
    case ParamRule::non_negative: return "a finite number >= 0";
    case ParamRule::efficiency: return "an efficiency in (0, 1]";
    case ParamRule::fraction: return "a fraction in [0, 1]";
    case ParamRule::exponent: return "a finite number >= 1";
  }
  return "?";
}

constexpr bool keeps(ParamRule r, double v) noexcept {
  if (!std::isfinite(v)) return false;
  switch (r) {
    case ParamRule::positive: return v > 0;
    case ParamRule::non_negative: return v >= 0;
    case ParamRule::efficiency: return v > 0 && v <= 1;
    case ParamRule::fraction: return v >= 0 && v <= 1;
    case ParamRule::exponent: return v >= 1;
  }
  return false;
}

struct RooflineParamField {
  std::string path;  // dotted, as in roofline.json: "gemm.memory.sat_bytes"
  ParamRule rule;
  std::function<double&(RooflineParams&)> ref;
  // A file may leave the field out and mean this other field's value (mxfp4 runs at
  // fp4's fitted efficiency in files written before mxfp4 existed, int4 at bf16's);
  // empty: required.
  std::string fallback{};
};

// In roofline.json's order (a file missing several fields is told about the first).
inline const std::vector<RooflineParamField>& roofline_param_fields() {
  static const std::vector<RooflineParamField> fields = [] {
    using R = ParamRule;
    using P = RooflineParams;
    std::vector<RooflineParamField> f;
    for (Dtype d : all_dtypes) {
      const auto i = static_cast<std::size_t>(d);
      f.push_back({fmt::format("gemm.eff_compute.{}", name(d)), R::efficiency,
                   [i](P& p) -> double& { return p.gemm.eff_compute[i]; },
                   d == Dtype::mxfp4       ? std::string("gemm.eff_compute.fp4")
                   : d == Dtype::fp8_block ? std::string("gemm.eff_compute.fp8")
                   : d == Dtype::int4      ? std::string("gemm.eff_compute.bf16")
                                           : std::string()});
    }
    f.push_back({"gemm.eff_tile_m64", R::efficiency, [](P& p) -> double& { return p.gemm.eff_tile_m64; }});
    f.push_back({"gemm.k_overhead", R::non_negative, [](P& p) -> double& { return p.gemm.k_overhead; }});
    f.push_back({"gemm.overlap_p", R::exponent, [](P& p) -> double& { return p.gemm.overlap_p; }});
    auto curve = [&f](const std::string& path, std::function<SaturatingCurve&(P&)> c) {
      f.push_back({path + ".eff_max", R::efficiency, [c](P& p) -> double& { return c(p).eff_max; }});
      f.push_back({path + ".sat_bytes", R::positive, [c](P& p) -> double& { return c(p).sat_bytes; }});
      f.push_back({path + ".floor_s", R::non_negative, [c](P& p) -> double& { return c(p).floor_s; }});
    };
    curve("gemm.memory", [](P& p) -> SaturatingCurve& { return p.gemm.memory; });
    for (std::size_t i = 0; i < elementwise_kind_count; ++i)
      curve(fmt::format("elementwise.{}", elementwise_kind_names[i]),
            [i](P& p) -> SaturatingCurve& { return p.elementwise[i]; });
    f.push_back({"attention.eff_compute_prefill", R::efficiency,
                 [](P& p) -> double& { return p.attention.eff_compute_prefill; }});
    f.push_back({"attention.eff_compute_prefill_fp8", R::efficiency,
                 [](P& p) -> double& { return p.attention.eff_compute_prefill_fp8; }});
    f.push_back({"attention.prefill_tile_s", R::non_negative,
                 [](P& p) -> double& { return p.attention.prefill_tile_s; }});
    f.push_back({"attention.eff_mem", R::efficiency, [](P& p) -> double& { return p.attention.eff_mem; }});
    f.push_back({"attention.mem_sat_bytes", R::positive, [](P& p) -> double& { return p.attention.mem_sat_bytes; }});
    f.push_back({"attention.decode_tile_s", R::non_negative,
                 [](P& p) -> double& { return p.attention.decode_tile_s; }});
    f.push_back({"attention.overlap_p", R::exponent, [](P& p) -> double& { return p.attention.overlap_p; }});
    f.push_back({"attention.floor_s", R::non_negative, [](P& p) -> double& { return p.attention.floor_s; }});
    f.push_back({"collective.alpha_s", R::non_negative, [](P& p) -> double& { return p.collective.alpha_s; }});
    f.push_back({"collective.alpha_per_log2_s", R::non_negative,
                 [](P& p) -> double& { return p.collective.alpha_per_log2_s; }});
    f.push_back({"collective.eff_max", R::efficiency, [](P& p) -> double& { return p.collective.eff_max; }});
    f.push_back({"collective.sat_bytes", R::positive, [](P& p) -> double& { return p.collective.sat_bytes; }});
    f.push_back({"custom_all_reduce.alpha_s", R::non_negative,
                 [](P& p) -> double& { return p.custom_all_reduce.alpha_s; }});
    f.push_back({"custom_all_reduce.alpha_per_gpu_s", R::non_negative,
                 [](P& p) -> double& { return p.custom_all_reduce.alpha_per_gpu_s; }});
    f.push_back({"custom_all_reduce.eff_max", R::efficiency,
                 [](P& p) -> double& { return p.custom_all_reduce.eff_max; }});
    f.push_back({"custom_all_reduce.sat_bytes", R::positive,
                 [](P& p) -> double& { return p.custom_all_reduce.sat_bytes; }});
    f.push_back({"custom_all_reduce.max_bytes", R::positive,
                 [](P& p) -> double& { return p.custom_all_reduce.max_bytes; }});
    f.push_back({"custom_all_reduce.max_gpus", R::positive,
                 [](P& p) -> double& { return p.custom_all_reduce.max_gpus; }});
    auto link = [&f](const std::string& path, std::function<LinkCurve&(P&)> c) {
      f.push_back({path + ".alpha_s", R::non_negative, [c](P& p) -> double& { return c(p).alpha_s; }});
      f.push_back({path + ".eff_max", R::efficiency, [c](P& p) -> double& { return c(p).eff_max; }});
      f.push_back({path + ".sat_bytes", R::positive, [c](P& p) -> double& { return c(p).sat_bytes; }});
    };
    link("p2p.intra_node", [](P& p) -> LinkCurve& { return p.p2p_intra_node; });
    link("p2p.inter_node", [](P& p) -> LinkCurve& { return p.p2p_inter_node; });
    f.push_back({"energy.idle_power_fraction", R::fraction,
                 [](P& p) -> double& { return p.energy.idle_power_fraction; }});
    return f;
  }();
  return fields;
}

}  // namespace costdsl::detail
