#pragma once
// The strict loader of one profile DB table, data/profiles/<gpu>/<kind>.csv (format:
// data/profiles/README.md).
//
// Strict, because a silently misread column skews every number the model produces:
// every malformed header or cell is a DataError "FILE:LINE:COL: ..." naming the
// column, the value and the rule. Only bad measurements (time_ms NaN, infinite,
// negative or 0) are dropped with a warning, as design §8 asks for samples.
#include <algorithm>
#include <compare>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "costdsl/detail/config.hpp"
#include "costdsl/error.hpp"
#include "costdsl/profile_schema.hpp"

namespace costdsl {

// One measured row.
struct ProfilePoint {
  std::vector<double> inputs;                                 // in schema.inputs order
  double time_ms = 0;                                         // finite, > 0
  double energy_j = std::numeric_limits<double>::quiet_NaN();  // NaN: not measured
  std::size_t line = 0;                                       // source line, for messages
};

// Rows group by config values (schema.config order) and backend. Integer columns hold
// their canonical decimal text ("064" reads as "64"), so lookups compare as numbers.
struct ProfileKey {
  std::vector<std::string> config;
  std::string backend;
  friend auto operator<=>(const ProfileKey&, const ProfileKey&) = default;
  friend bool operator==(const ProfileKey&, const ProfileKey&) = default;
};

struct ProfileGroup {
  ProfileKey key;
  std::vector<ProfilePoint> points;  // in file order
  // Who measured the rows, from the optional framework and version columns ("SGLang
  // 0.5.14"; each distinct text once, in file order, joined by ", "); empty without them.
  std::string provenance;
};

class ProfileTable {
 public:
  ProfileTable() = default;
  ProfileTable(std::string file, ProfileSchema schema, bool has_energy)
      : file_(std::move(file)), schema_(std::move(schema)), has_energy_(has_energy) {}

  const std::string& file() const noexcept { return file_; }
  const ProfileSchema& schema() const noexcept { return schema_; }
  bool has_energy() const noexcept { return has_energy_; }  // the file has an energy_j column
  const std::vector<ProfileGroup>& groups() const noexcept { return groups_; }  // first-appearance order
  bool empty() const noexcept { return groups_.empty(); }

  std::size_t point_count() const noexcept {
    std::size_t n = 0;
    for (const auto& g : groups_) n += g.points.size();
    return n;
  }

  // nullptr when no row has this config and backend.
  const ProfileGroup* find(const ProfileKey& key) const {
    const auto it = index_.find(key);
    return it == index_.end() ? nullptr : &groups_[it->second];
  }
  const ProfileGroup* find(std::vector<std::string> config, std::string backend) const {
    return find(ProfileKey{std::move(config), std::move(backend)});
  }

  // The backends measured for one config, in first-appearance order.
  std::vector<std::string> backends(std::span<const std::string> config) const {
    std::vector<std::string> out;
    for (const auto& g : groups_)
      if (std::equal(g.key.config.begin(), g.key.config.end(), config.begin(), config.end()))
        out.push_back(g.key.backend);
    return out;
  }

  void add(const ProfileKey& key, ProfilePoint point, std::string_view provenance = {}) {
    // A table's rows come grouped (the importer writes them so): the last row's group first.
    if (last_ >= groups_.size() || !(groups_[last_].key == key)) {
      auto [it, inserted] = index_.try_emplace(key, groups_.size());
      if (inserted) groups_.push_back(ProfileGroup{key, {}, {}});
      last_ = it->second;
    }
    ProfileGroup& g = groups_[last_];
    g.points.push_back(std::move(point));
    add_provenance(g.provenance, provenance);
  }

  // Adds `item` to a ", "-joined list of provenance texts unless it is empty or listed.
  static void add_provenance(std::string& list, std::string_view item) {
    if (item.empty() || list == item) return;  // the common case: one text per group
    for (std::size_t at = 0; at <= list.size();) {
      const std::size_t end = std::min(list.find(", ", at), list.size());
      if (std::string_view(list).substr(at, end - at) == item) return;
      at = end + 2;
    }
    list += (list.empty() ? "" : ", ") + std::string(item);
  }

 private:
  std::string file_;
  ProfileSchema schema_;
  bool has_energy_ = false;
  std::vector<ProfileGroup> groups_;
  std::map<ProfileKey, std::size_t> index_;
  std::size_t last_ = 0;  // the group the last add() went to
};

// data_dir/profiles/<gpu>/<kind>.csv
inline std::filesystem::path profile_csv_path(const std::filesystem::path& data_dir, std::string_view gpu,
                                              std::string_view kind) {
  return data_dir / "profiles" / std::string(gpu) / (std::string(kind) + ".csv");
}

// data_dir/profiles/all/<gpu>/<kind>.csv.gz: every shape of the kind the source measured,
// gzip-compressed (ProfileDb::complete_table).
inline std::filesystem::path complete_profile_path(const std::filesystem::path& data_dir, std::string_view gpu,
                                                   std::string_view kind) {
  return data_dir / "profiles" / "all" / std::string(gpu) / (std::string(kind) + ".csv.gz");
}

// One cell of a CSV line.
struct CsvCell {
  std::string_view text;  // trimmed of spaces and tabs
  std::size_t col = 1;    // 1-based byte column of the cell's first character
};

// Called for each content line: its 1-based number, its text, its cells.
using CsvLineHandler = std::function<void(std::size_t line_no, std::string_view line, std::span<const CsvCell> cells)>;

// The line reader of every costdsl CSV (profile tables here, measurement tables in
// tools/aiconfigurator.hpp), so both follow one set of rules (data/profiles/README.md):
// UTF-8 (a leading BOM skipped), LF or CRLF, '#' comments and blank lines skipped, no
// quotes, no control characters. Calls on_line for every other line, cells split at
// commas and trimmed; a violation throws DataError "FILE:LINE:COL: ...".
COSTDSL_DECL void for_each_csv_line(std::string_view text, std::string_view file_label, const CsvLineHandler& on_line);

// The cell rules those readers share: a decimal integer that fits 64 bits, or a number
// (decimal or scientific; inf and nan spelled out); nullopt when the text is not one.
COSTDSL_DECL std::optional<std::int64_t> parse_csv_integer(std::string_view text);
COSTDSL_DECL std::optional<double> parse_csv_number(std::string_view text);

// Parses one table from text; `file_label` prefixes every message. Warnings (dropped
// rows, ignored energies, a table without rows) go to `warnings` (nullptr: ignore).
COSTDSL_DECL ProfileTable load_profile_csv_text(std::string_view text, std::string_view file_label,
                                               const ProfileSchema& schema, std::vector<std::string>* warnings = nullptr);

// Reads and parses one table file; the path names the file in every message.
COSTDSL_DECL ProfileTable load_profile_csv(const std::filesystem::path& path, const ProfileSchema& schema,
                                          std::vector<std::string>* warnings = nullptr);

}  // namespace costdsl

#if !defined(COSTDSL_SEPARATE_COMPILATION)
#include "costdsl/impl/profile_csv.ipp"
#endif
