// Definitions of costdsl/gpu_catalog.hpp (see costdsl/detail/config.hpp).
#include <algorithm>
#include <cctype>
#include <cstdint>
#include <fstream>
#include <iterator>
#include <limits>
#include <optional>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "costdsl/error.hpp"
#include "costdsl/gpu_catalog.hpp"

#if __has_include("costdsl/detail/shipped_data.hpp")
#include "costdsl/detail/shipped_data.hpp"
#endif

namespace costdsl {

namespace detail {

COSTDSL_DECL std::string fold_gpu_name(std::string_view s) {
  // Case-insensitive, and '-', '_' and ' ' are the same separator ("H200-SXM" == "h200 sxm").
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    if (c == '-' || c == '_' || c == ' ')
      out.push_back(' ');
    else
      out.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  }
  return out;
}

class GpuFieldReader {
 public:
  GpuFieldReader(const nlohmann::json& obj, std::string_view gpu, std::string_view file)
      : obj_(obj), gpu_(gpu), file_(file) {}

  const nlohmann::json& field(std::string_view key) const {
    auto it = obj_.find(key);
    if (it == obj_.end()) fail(key, "is missing");
    return *it;
  }
  double number(std::string_view key) const {
    const auto& v = field(key);
    if (!v.is_number()) fail(key, fmt::format("must be a number, got {}", v.type_name()));
    const double d = v.get<double>();
    if (!(d > 0)) fail(key, fmt::format("must be > 0, got {}", d));
    return d;
  }
  int integer(std::string_view key) const {
    const auto& v = field(key);
    // Check the range before narrowing: get<int>() would silently truncate 3000000000,
    // and get<long long>() wraps an integer above 2^63-1 (stored unsigned).
    if (!v.is_number_integer() || (v.is_number_unsigned() ? v.get<std::uint64_t>() == 0 : v.get<long long>() <= 0))
      fail(key, fmt::format("must be a positive integer, got {}", v.dump()));
    if (v.get<std::uint64_t>() > static_cast<std::uint64_t>(std::numeric_limits<int>::max()))
      fail(key, fmt::format("must be a positive integer of at most {}, got {}", std::numeric_limits<int>::max(),
                            v.dump()));
    return v.get<int>();
  }
  std::string string(std::string_view key) const {
    const auto& v = field(key);
    if (!v.is_string()) fail(key, fmt::format("must be a string, got {}", v.type_name()));
    return v.get<std::string>();
  }
  // A present key whose value is a positive number or null (no such path).
  std::optional<double> nullable_number(const nlohmann::json& parent, std::string_view key,
                                        std::string_view path) const {
    auto it = parent.find(key);
    if (it == parent.end()) fail(path, "is missing (use null for no such path)");
    if (it->is_null()) return std::nullopt;
    if (!it->is_number() || !(it->get<double>() > 0))
      fail(path, fmt::format("must be a positive number or null, got {}", it->dump()));
    return it->get<double>();
  }
  [[noreturn]] void fail(std::string_view key, std::string_view what) const {
    throw DataError(fmt::format("{}: gpu '{}': field '{}' {}", file_, gpu_, key, what));
  }

 private:
  const nlohmann::json& obj_;
  std::string_view gpu_;
  std::string_view file_;
};

}  // namespace detail

COSTDSL_DECL GpuCatalog GpuCatalog::parse(std::string_view text, std::string_view origin) {
  nlohmann::json root;
  try {
    root = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {  // parse_error, and out_of_range for a number too large
    throw DataError(fmt::format("{}: not valid JSON: {}", origin, e.what()));
  }
  if (!root.is_object() || !root.contains("gpus") || !root["gpus"].is_object())
    throw DataError(fmt::format("{}: top level must be an object with a 'gpus' object", origin));
  GpuCatalog cat;
  for (const auto& [key, obj] : root["gpus"].items()) {
    if (!obj.is_object()) throw DataError(fmt::format("{}: gpu '{}' must be an object", origin, key));
    const detail::GpuFieldReader r(obj, key, origin);
    GpuSpec g;
    g.name = key;
    const auto& al = r.field("aliases");
    if (!al.is_array()) r.fail("aliases", "must be an array of strings");
    for (const auto& a : al) {
      if (!a.is_string()) r.fail("aliases", "must be an array of strings");
      g.aliases.push_back(a.get<std::string>());
    }
    g.sm_version = r.integer("sm_version");
    g.sm_count = r.integer("sm_count");
    const auto& pf = r.field("peak_flops");
    if (!pf.is_object()) r.fail("peak_flops", "must be an object");
    g.peak_bf16 = r.nullable_number(pf, "bf16", "peak_flops.bf16");
    g.peak_fp16 = r.nullable_number(pf, "fp16", "peak_flops.fp16");
    g.peak_fp8 = r.nullable_number(pf, "fp8", "peak_flops.fp8");
    g.peak_fp4 = r.nullable_number(pf, "fp4", "peak_flops.fp4");
    g.peak_fp32 = r.nullable_number(pf, "fp32", "peak_flops.fp32");
    g.hbm_bandwidth = r.number("hbm_bandwidth");
    g.hbm_capacity = r.number("hbm_capacity");
    g.intra_node_bandwidth = r.number("intra_node_bandwidth");
    g.inter_node_bandwidth = r.number("inter_node_bandwidth");
    g.gpus_per_node = r.integer("gpus_per_node");
    g.p2p_latency_s = r.number("p2p_latency_s");
    g.board_power_w = r.number("board_power_w");
    g.notes = r.string("notes");
    cat.add(std::move(g), origin);
  }
  if (cat.gpus_.empty()) throw DataError(fmt::format("{}: 'gpus' is empty", origin));
  return cat;
}

COSTDSL_DECL GpuCatalog GpuCatalog::load(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw DataError(fmt::format("cannot open gpu catalog '{}'", file.string()));
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return parse(text, file.string());
}

COSTDSL_DECL GpuCatalog GpuCatalog::load_default(const std::filesystem::path& data_dir) {
  const std::filesystem::path file = data_dir / "gpus.json";
#if defined(COSTDSL_HAS_SHIPPED_DATA)
  std::error_code ec;
  if (!std::filesystem::exists(file, ec)) return parse(detail::shipped_gpus_json, "gpus.json (compiled in)");
#endif
  return load(file);
}

COSTDSL_DECL const GpuSpec& GpuCatalog::find(std::string_view name) const {
  const std::string key = detail::fold_gpu_name(name);
  for (const auto& [alias, idx] : index_)
    if (alias == key) return gpus_[idx];
  std::string known;
  for (const auto& g : gpus_) known += (known.empty() ? "" : ", ") + g.name;
  throw InputError(fmt::format("unknown gpu '{}' (known: {}; aliases such as 'H200' also work)",
                               name, known));
}

COSTDSL_DECL bool GpuCatalog::contains(std::string_view name) const {
  const std::string key = detail::fold_gpu_name(name);
  return std::any_of(index_.begin(), index_.end(), [&](const auto& e) { return e.first == key; });
}

COSTDSL_DECL void GpuCatalog::add(GpuSpec g, std::string_view origin) {
  const std::size_t idx = gpus_.size();
  auto claim = [&](const std::string& n) {
    const std::string key = detail::fold_gpu_name(n);
    for (const auto& [alias, other] : index_) {
      if (alias != key) continue;
      if (other == idx) return;  // an alias repeating its own name is harmless
      throw DataError(fmt::format("{}: gpu '{}': alias '{}' already names gpu '{}'", origin, g.name,
                                  n, gpus_[other].name));
    }
    index_.emplace_back(key, idx);
  };
  claim(g.name);
  for (const auto& a : g.aliases) claim(a);
  gpus_.push_back(std::move(g));
}

}  // namespace costdsl
