// The family registry: the families tools/meson.build lists (cli_families.h), each defined
// by COSTDSL_CLI_FAMILY in its own translation unit (tools/family.hpp).
#include "family.hpp"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cli_families.h"
#include "costdsl/error.hpp"

namespace costdsl::cli {

namespace models {
#define COSTDSL_CLI_FAMILY_ENTRY(stem) extern const ModelFamily stem##_family;
COSTDSL_CLI_FAMILIES
#undef COSTDSL_CLI_FAMILY_ENTRY
}  // namespace models

const std::vector<const ModelFamily*>& families() {
  static const std::vector<const ModelFamily*> all{
#define COSTDSL_CLI_FAMILY_ENTRY(stem) &models::stem##_family,
      COSTDSL_CLI_FAMILIES
#undef COSTDSL_CLI_FAMILY_ENTRY
  };
  return all;
}

std::vector<std::string> family_names() {
  std::vector<std::string> names;
  for (const ModelFamily* f : families()) names.push_back(f->name);
  return names;
}

const ModelFamily& find_family(std::string_view name) {
  for (const ModelFamily* f : families())
    if (f->name == name) return *f;
  throw InputError(fmt::format("unknown family '{}' (known: {})", name, fmt::join(family_names(), ", ")));
}

const ModelFamily& family_of(const HfConfig& hf) {
  const HfConfig::Value* listed = hf.find("architectures");
  std::vector<std::string> declared;
  if (listed != nullptr && listed->type == HfConfig::Value::Type::array)
    for (const HfConfig::Value& item : listed->items)
      if (item.type == HfConfig::Value::Type::string) declared.push_back(item.text);
  // The families whose list (architectures or model_types) holds name: the first that
  // reads the config, else the first.
  const auto pick = [&](std::vector<std::string> ModelFamily::*list, const std::string& name) {
    const ModelFamily* first = nullptr;
    for (const ModelFamily* f : families()) {
      const std::vector<std::string>& names = f->*list;
      if (std::find(names.begin(), names.end(), name) == names.end()) continue;
      if (f->reads == nullptr || f->reads(hf)) return f;
      if (first == nullptr) first = f;
    }
    return first;
  };
  for (const std::string& name : declared)
    if (const ModelFamily* f = pick(&ModelFamily::architectures, name)) return *f;
  const HfConfig::Value* type = hf.find("model_type");
  const bool has_type = type != nullptr && type->type == HfConfig::Value::Type::string;
  if (declared.empty() && has_type)
    if (const ModelFamily* f = pick(&ModelFamily::model_types, type->text)) return *f;
  std::string supported;
  for (const ModelFamily* f : families())
    supported += fmt::format("{}{} ({})", supported.empty() ? "" : ", ", fmt::join(f->architectures, ", "), f->name);
  throw DataError(fmt::format(
      "{}: architectures {} (model_type {}) is no supported family: the first "
      "known architectures entry picks "
      "it, model_type only when there is none; supported: {}; or give --family",
      hf.file(), listed != nullptr ? listed->json : "absent", type != nullptr ? type->json : "absent", supported));
}

}  // namespace costdsl::cli
