// Definitions of costdsl/load_roofline_params.hpp (see costdsl/detail/config.hpp).
#include <cmath>
#include <fstream>
#include <iterator>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "costdsl/dtype.hpp"
#include "costdsl/error.hpp"
#include "costdsl/load_roofline_params.hpp"

#if __has_include("costdsl/detail/shipped_data.hpp")
#include "costdsl/detail/shipped_data.hpp"
#endif

namespace costdsl {

namespace detail {

class ParamReader {
 public:
  explicit ParamReader(std::string_view origin) : origin_(origin) {}
  const nlohmann::json& object(const nlohmann::json& parent, std::string_view key, const std::string& path) const {
    auto it = parent.find(key);
    if (it == parent.end()) fail(path, "is missing");
    if (!it->is_object()) fail(path, "must be an object");
    return *it;
  }
  double number(const nlohmann::json& parent, std::string_view key, const std::string& path,
                bool efficiency = false, bool allow_zero = false) const {
    auto it = parent.find(key);
    if (it == parent.end()) fail(path, "is missing");
    if (!it->is_number()) fail(path, fmt::format("must be a number, got {}", it->type_name()));
    const double v = it->get<double>();
    if (!std::isfinite(v) || v < 0 || (v == 0 && !allow_zero))
      fail(path, fmt::format("must be {}, got {}", allow_zero ? ">= 0" : "> 0", v));
    if (efficiency && v > 1) fail(path, fmt::format("is an efficiency and must be <= 1, got {}", v));
    return v;
  }
  SaturatingCurve curve(const nlohmann::json& o, const std::string& path) const {
    return {number(o, "eff_max", path + ".eff_max", true), number(o, "sat_bytes", path + ".sat_bytes"),
            number(o, "floor_s", path + ".floor_s", false, true)};
  }
  LinkCurve link(const nlohmann::json& o, const std::string& path) const {
    return {number(o, "alpha_s", path + ".alpha_s", false, true),
            number(o, "eff_max", path + ".eff_max", true), number(o, "sat_bytes", path + ".sat_bytes")};
  }
  [[noreturn]] void fail(const std::string& path, std::string_view what) const {
    throw DataError(fmt::format("{}: field '{}' {}", origin_, path, what));
  }

 private:
  std::string_view origin_;
};

}  // namespace detail

COSTDSL_DECL RooflineParams parse_roofline_params(std::string_view text, std::string_view origin) {
  nlohmann::json root;
  try {
    root = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {  // parse_error, and out_of_range for a number too large
    throw DataError(fmt::format("{}: not valid JSON: {}", origin, e.what()));
  }
  const detail::ParamReader r(origin);
  if (!root.is_object()) r.fail("(root)", "must be an object");
  RooflineParams p;
  const auto& g = r.object(root, "gemm", "gemm");
  const auto& ec = r.object(g, "eff_compute", "gemm.eff_compute");
  for (Dtype d : all_dtypes) {
    // mxfp4 (block-scaled fp4) may be absent: it then runs at fp4's fitted efficiency,
    // which files written before it existed state.
    if (d == Dtype::mxfp4 && !ec.contains(name(d))) {
      p.gemm.eff_compute[static_cast<std::size_t>(d)] = p.gemm.eff_compute[static_cast<std::size_t>(Dtype::fp4)];
      continue;
    }
    p.gemm.eff_compute[static_cast<std::size_t>(d)] =
        r.number(ec, name(d), fmt::format("gemm.eff_compute.{}", name(d)), true);
  }
  p.gemm.eff_tile_m64 = r.number(g, "eff_tile_m64", "gemm.eff_tile_m64", true);
  p.gemm.k_overhead = r.number(g, "k_overhead", "gemm.k_overhead", false, true);
  p.gemm.overlap_p = r.number(g, "overlap_p", "gemm.overlap_p");
  if (p.gemm.overlap_p < 1) r.fail("gemm.overlap_p", "must be >= 1");
  p.gemm.memory = r.curve(r.object(g, "memory", "gemm.memory"), "gemm.memory");
  const auto& ew = r.object(root, "elementwise", "elementwise");
  for (std::size_t i = 0; i < elementwise_kind_count; ++i) {
    const std::string path = fmt::format("elementwise.{}", elementwise_kind_names[i]);
    p.elementwise[i] = r.curve(r.object(ew, elementwise_kind_names[i], path), path);
  }
  const auto& at = r.object(root, "attention", "attention");
  auto& a = p.attention;
  a.eff_compute_prefill = r.number(at, "eff_compute_prefill", "attention.eff_compute_prefill", true);
  a.eff_compute_prefill_fp8 = r.number(at, "eff_compute_prefill_fp8", "attention.eff_compute_prefill_fp8", true);
  a.prefill_tile_s = r.number(at, "prefill_tile_s", "attention.prefill_tile_s", false, true);
  a.eff_mem = r.number(at, "eff_mem", "attention.eff_mem", true);
  a.mem_sat_bytes = r.number(at, "mem_sat_bytes", "attention.mem_sat_bytes");
  a.decode_tile_s = r.number(at, "decode_tile_s", "attention.decode_tile_s", false, true);
  a.overlap_p = r.number(at, "overlap_p", "attention.overlap_p");
  if (a.overlap_p < 1) r.fail("attention.overlap_p", "must be >= 1");
  a.floor_s = r.number(at, "floor_s", "attention.floor_s", false, true);
  const auto& co = r.object(root, "collective", "collective");
  p.collective.alpha_s = r.number(co, "alpha_s", "collective.alpha_s", false, true);
  p.collective.alpha_per_log2_s = r.number(co, "alpha_per_log2_s", "collective.alpha_per_log2_s", false, true);
  p.collective.eff_max = r.number(co, "eff_max", "collective.eff_max", true);
  p.collective.sat_bytes = r.number(co, "sat_bytes", "collective.sat_bytes");
  const auto& ca = r.object(root, "custom_all_reduce", "custom_all_reduce");
  auto& c = p.custom_all_reduce;
  c.alpha_s = r.number(ca, "alpha_s", "custom_all_reduce.alpha_s", false, true);
  c.alpha_per_gpu_s = r.number(ca, "alpha_per_gpu_s", "custom_all_reduce.alpha_per_gpu_s", false, true);
  c.eff_max = r.number(ca, "eff_max", "custom_all_reduce.eff_max", true);
  c.sat_bytes = r.number(ca, "sat_bytes", "custom_all_reduce.sat_bytes");
  c.max_bytes = r.number(ca, "max_bytes", "custom_all_reduce.max_bytes");
  c.max_gpus = r.number(ca, "max_gpus", "custom_all_reduce.max_gpus");
  const auto& pp = r.object(root, "p2p", "p2p");
  p.p2p_intra_node = r.link(r.object(pp, "intra_node", "p2p.intra_node"), "p2p.intra_node");
  p.p2p_inter_node = r.link(r.object(pp, "inter_node", "p2p.inter_node"), "p2p.inter_node");
  const auto& en = r.object(root, "energy", "energy");
  p.energy.idle_power_fraction =
      r.number(en, "idle_power_fraction", "energy.idle_power_fraction", true, true);
  return p;
}

COSTDSL_DECL RooflineParams load_roofline_params(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw DataError(fmt::format("cannot open roofline parameters '{}'", file.string()));
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return parse_roofline_params(text, file.string());
}

COSTDSL_DECL RooflineParams load_default_roofline_params(const std::filesystem::path& data_dir) {
  const std::filesystem::path file = data_dir / "roofline.json";
#if defined(COSTDSL_HAS_SHIPPED_DATA)
  std::error_code ec;
  if (!std::filesystem::exists(file, ec))
    return parse_roofline_params(detail::shipped_roofline_json, "roofline.json (compiled in)");
#endif
  return load_roofline_params(file);
}

}  // namespace costdsl
