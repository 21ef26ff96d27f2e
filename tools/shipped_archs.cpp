// The shipped archs, read from data/models/.
#include "shipped_archs.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <system_error>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "costdsl/data_dir.hpp"
#include "costdsl/error.hpp"
#include "costdsl/load_hf_config.hpp"
#include "family.hpp"

namespace costdsl::cli {

namespace {

std::filesystem::path models_dir() { return default_data_dir() / "models"; }

// The config.json files of data/models/, by name (no parsing).
std::vector<std::string> names() {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(models_dir(), ec))
    if (entry.is_regular_file() && entry.path().extension() == ".json") out.push_back(entry.path().stem().string());
  return out;
}

// a before b with digit runs compared by value: "llama3_8b" < "llama3_70b" <
// "llama3_405b".
bool natural_less(std::string_view a, std::string_view b) {
  std::size_t i = 0, j = 0;
  const auto digit = [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; };
  while (i < a.size() && j < b.size()) {
    if (digit(a[i]) && digit(b[j])) {
      std::size_t i_end = i, j_end = j;
      while (i_end < a.size() && digit(a[i_end])) ++i_end;
      while (j_end < b.size() && digit(b[j_end])) ++j_end;
      const std::string_view x = a.substr(i, i_end - i), y = b.substr(j, j_end - j);
      if (x.size() != y.size()) return x.size() < y.size();  // no leading zeros in shipped names
      if (x != y) return x < y;
      i = i_end, j = j_end;
    } else {
      if (a[i] != b[j]) return a[i] < b[j];
      ++i, ++j;
    }
  }
  return a.size() - i < b.size() - j;
}

ShippedArch read(const std::string& name) {
  const std::string file = name + ".json";
  const HfConfig hf = load_hf_config(models_dir() / file);
  const ModelFamily& family = family_of(hf);
  std::string summary = hf.has("costdsl_summary") ? hf.text("costdsl_summary") : std::string();
  const HfConfig::Value* listed = hf.find("architectures");  // family_of read it: an array of strings
  if (summary.empty() && listed != nullptr && !listed->items.empty()) summary = listed->items.front().text;
  return {name, family.name, file, std::move(summary)};
}

}  // namespace

std::vector<ShippedArch> shipped_archs() {
  std::vector<ShippedArch> all;
  for (const std::string& name : names()) all.push_back(read(name));
  const std::vector<std::string> order = family_names();
  const auto rank = [&](const ShippedArch& a) {
    return std::find(order.begin(), order.end(), a.family) - order.begin();
  };
  std::sort(all.begin(), all.end(), [&](const ShippedArch& a, const ShippedArch& b) {
    return rank(a) != rank(b) ? rank(a) < rank(b) : natural_less(a.name, b.name);
  });
  return all;
}

ShippedArch find_arch(std::string_view name) {
  const std::vector<std::string> files = names();
  if (std::find(files.begin(), files.end(), name) != files.end()) return read(std::string(name));
  std::vector<std::string> known;
  for (const ShippedArch& a : shipped_archs()) known.push_back(a.name);
  throw InputError(fmt::format("unknown arch '{}' (known: {}{})", name, fmt::join(known, ", "),
                               known.empty() ? "none: no config.json in " + models_dir().string() : ""));
}

}  // namespace costdsl::cli
