// Definitions of costdsl/load_roofline_params.hpp (see costdsl/detail/config.hpp).
#include <algorithm>
#include <cmath>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "costdsl/detail/json_parse_naming_field.hpp"
#include "costdsl/detail/roofline_param_fields.hpp"
#include "costdsl/error.hpp"
#include "costdsl/load_roofline_params.hpp"

#if __has_include("costdsl/detail/shipped_data.hpp")
#include "costdsl/detail/shipped_data.hpp"
#endif

namespace costdsl {

namespace detail {

// A JSON value against a field's rule: the number, or a DataError naming the field.
inline double roofline_param_value(const nlohmann::json& v, const RooflineParamField& f, std::string_view origin) {
  if (!v.is_number())
    throw DataError(fmt::format("{}: field '{}' must be a number, got {}", origin, f.path, v.type_name()));
  const double x = v.get<double>();
  if (!keeps(f.rule, x))
    throw DataError(fmt::format("{}: field '{}' must be {}, got {}", origin, f.path, rule_text(f.rule), x));
  return x;
}

// The names a JSON object at `prefix` may hold (for an unknown-field message).
inline std::string roofline_param_names_under(std::string_view prefix) {
  std::vector<std::string> names;
  for (const RooflineParamField& f : roofline_param_fields()) {
    std::string_view rest = f.path;
    if (!prefix.empty()) {
      if (rest.substr(0, prefix.size()) != prefix || rest.size() <= prefix.size() || rest[prefix.size()] != '.')
        continue;
      rest.remove_prefix(prefix.size() + 1);
    }
    std::string head(rest.substr(0, rest.find('.')));
    if (std::find(names.begin(), names.end(), head) == names.end()) names.push_back(std::move(head));
  }
  return fmt::format("{}", fmt::join(names, ", "));
}

}  // namespace detail

COSTDSL_DECL RooflineParams parse_roofline_params(std::string_view text, std::string_view origin) {
  const nlohmann::json root = detail::parse_json_naming_field(text, origin);
  if (!root.is_object()) throw DataError(fmt::format("{}: field '(root)' must be an object", origin));
  RooflineParams p;
  std::vector<const detail::RooflineParamField*> fell_back;
  for (const detail::RooflineParamField& f : detail::roofline_param_fields()) {
    // Walk the objects above the field, each named in its own error.
    const nlohmann::json* obj = &root;
    std::size_t dot = 0;
    for (std::size_t next = f.path.find('.'); next != std::string::npos; next = f.path.find('.', dot)) {
      const std::string key = f.path.substr(dot, next - dot);
      const std::string where = f.path.substr(0, next);
      const auto it = obj->find(key);
      if (it == obj->end()) throw DataError(fmt::format("{}: field '{}' is missing", origin, where));
      if (!it->is_object()) throw DataError(fmt::format("{}: field '{}' must be an object", origin, where));
      obj = &*it;
      dot = next + 1;
    }
    const auto it = obj->find(f.path.substr(dot));
    if (it == obj->end()) {
      if (f.fallback.empty()) throw DataError(fmt::format("{}: field '{}' is missing", origin, f.path));
      fell_back.push_back(&f);
      continue;
    }
    f.ref(p) = detail::roofline_param_value(*it, f, origin);
  }
  for (const detail::RooflineParamField* f : fell_back) {
    const auto& all = detail::roofline_param_fields();
    const auto src = std::find_if(all.begin(), all.end(), [&](const auto& g) { return g.path == f->fallback; });
    f->ref(p) = src->ref(p);
  }
  return p;
}

COSTDSL_DECL RooflineParams apply_roofline_params_patch(const RooflineParams& base, std::string_view json_text,
                                                        std::string_view origin) {
  const nlohmann::json root = detail::parse_json_naming_field(json_text, origin);
  if (!root.is_object())
    throw DataError(fmt::format("{}: the parameters must be a JSON object shaped like roofline.json, got {}", origin,
                                root.type_name()));
  RooflineParams p = base;
  const auto& fields = detail::roofline_param_fields();
  std::vector<const detail::RooflineParamField*> given;
  // Every leaf must be a field: a misspelt name would otherwise leave its parameter at the
  // base value while the caller believes it set it.
  auto walk = [&](auto&& self, const nlohmann::json& obj, const std::string& prefix) -> void {
    for (const auto& [key, value] : obj.items()) {
      const std::string path = prefix.empty() ? key : prefix + "." + key;
      const auto f = std::find_if(fields.begin(), fields.end(), [&](const auto& g) { return g.path == path; });
      if (f != fields.end()) {
        f->ref(p) = detail::roofline_param_value(value, *f, origin);
        given.push_back(&*f);
        continue;
      }
      const bool is_prefix = std::any_of(fields.begin(), fields.end(), [&](const auto& g) {
        return g.path.size() > path.size() && g.path.compare(0, path.size(), path) == 0 && g.path[path.size()] == '.';
      });
      if (!is_prefix)
        throw DataError(fmt::format("{}: field '{}' is not a roofline parameter ({}: {})", origin, path,
                                    prefix.empty() ? std::string("top-level fields") : "fields under '" + prefix + "'",
                                    detail::roofline_param_names_under(prefix)));
      if (!value.is_object())
        throw DataError(fmt::format("{}: field '{}' must be an object (its fields: {}), got {}", origin, path,
                                    detail::roofline_param_names_under(path), value.type_name()));
      self(self, value, path);
    }
  };
  walk(walk, root, "");
  // As in a file: a field left out whose fallback was given follows it (mxfp4 after fp4).
  for (const auto& f : fields) {
    if (f.fallback.empty() || std::find(given.begin(), given.end(), &f) != given.end()) continue;
    const auto src = std::find_if(given.begin(), given.end(), [&](const auto* g) { return g->path == f.fallback; });
    if (src != given.end()) f.ref(p) = (*src)->ref(p);
  }
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
