// Definitions of costdsl/profile_csv.hpp (see costdsl/detail/config.hpp).
#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <system_error>
#include <unordered_map>

#include <fmt/format.h>

#include "costdsl/detail/read_text_file.hpp"
#include "costdsl/profile_csv.hpp"

namespace costdsl {

namespace detail::profile_csv {

using Cell = CsvCell;

inline constexpr std::string_view backend_col = "backend";
inline constexpr std::string_view time_col = "time_ms";
inline constexpr std::string_view energy_col = "energy_j";
// Optional provenance columns (who measured the row, with what): any text, no rule on it.
// framework and version name a group's source (ProfileGroup::provenance); tables the
// importer writes carry all three.
inline constexpr std::array<std::string_view, 3> provenance_cols{"framework", "version", "source"};
// A provenance cell that repeats the one above it: the importer writes a run of rows from one
// framework, version and kernel as its first row's text and "=" after it (half of a table's
// bytes were the same three cells on every row).
inline constexpr std::string_view ditto = "=";


// Length of the valid UTF-8 sequence starting at s[i], or 0 if it is invalid
// (overlong forms, surrogates and code points above U+10FFFF included).
COSTDSL_DECL std::size_t utf8_length(std::string_view s, std::size_t i) {
  const auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = b(i);
  if (c < 0x80) return 1;
  std::size_t n = 0;
  unsigned char lo = 0x80, hi = 0xBF;  // allowed range of the second byte
  if (c >= 0xC2 && c <= 0xDF) {
    n = 2;
  } else if (c >= 0xE0 && c <= 0xEF) {
    n = 3;
    if (c == 0xE0) lo = 0xA0;
    if (c == 0xED) hi = 0x9F;
  } else if (c >= 0xF0 && c <= 0xF4) {
    n = 4;
    if (c == 0xF0) lo = 0x90;
    if (c == 0xF4) hi = 0x8F;
  } else {
    return 0;
  }
  if (i + n > s.size()) return 0;
  if (b(i + 1) < lo || b(i + 1) > hi) return 0;
  for (std::size_t k = 2; k < n; ++k)
    if (b(i + k) < 0x80 || b(i + k) > 0xBF) return 0;
  return n;
}

COSTDSL_DECL std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

COSTDSL_DECL std::optional<double> parse_double(std::string_view s) {
  double v = 0;
  const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || p != s.data() + s.size()) return std::nullopt;
  // "1e999" is a number, just not a double: from_chars leaves v unset. Read it as the
  // value it rounds to (±inf, or 0 on underflow) so the cell rules below name it as
  // "not finite" or "0" instead of "not a number". strtod only runs on this rare path.
  if (ec == std::errc::result_out_of_range) return std::strtod(std::string(s).c_str(), nullptr);
  if (ec != std::errc()) return std::nullopt;
  return v;
}

COSTDSL_DECL std::optional<std::int64_t> parse_int(std::string_view s) {
  std::int64_t v = 0;
  const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  return v;
}

// True for an integer too large for parse_int ("99999999999999999999"), so the
// message can say "out of range" rather than "not an integer".
COSTDSL_DECL bool is_decimal_integer(std::string_view s) {
  if (s.starts_with('-') || s.starts_with('+')) s.remove_prefix(1);
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// How each header column is used.
enum class Role : std::uint8_t { config, input, backend, time, energy, provenance };
struct Slot {
  Role role = Role::config;
  std::size_t index = 0;  // into schema.config / schema.inputs
};

COSTDSL_DECL void check_schema(const ProfileSchema& schema) {
  std::vector<std::string_view> names;
  for (const auto& c : schema.config) names.push_back(c.name);
  for (const auto& n : schema.inputs) names.push_back(n);
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (names[i].empty()) throw InputError(fmt::format("profile schema '{}': a column name is empty", schema.kind));
    if (names[i] == backend_col || names[i] == time_col || names[i] == energy_col ||
        std::find(provenance_cols.begin(), provenance_cols.end(), names[i]) != provenance_cols.end())
      throw InputError(
          fmt::format("profile schema '{}': column '{}' is reserved for the loader", schema.kind, names[i]));
    for (std::size_t j = 0; j < i; ++j)
      if (names[j] == names[i])
        throw InputError(fmt::format("profile schema '{}': column '{}' is declared twice", schema.kind, names[i]));
  }
  for (const Column& c : schema.config) {
    if (!c.default_from.empty() && !c.default_value.empty())
      throw InputError(fmt::format("profile schema '{}': column '{}' has both a default column and a default value",
                                   schema.kind, c.name));
    if (c.default_from.empty()) continue;
    const auto from = std::find_if(schema.config.begin(), schema.config.end(),
                                   [&](const Column& o) { return o.name == c.default_from; });
    if (from == schema.config.end() || !from->default_from.empty() || from->type != c.type)
      throw InputError(fmt::format("profile schema '{}': column '{}' defaults to '{}', which must be another config "
                                   "column of its type without a default",
                                   schema.kind, c.name, c.default_from));
  }
}


COSTDSL_DECL std::string expected_columns(const ProfileSchema& schema) {
  std::string out;
  for (const auto& c : schema.config)
    out += !c.default_from.empty()    ? fmt::format("{} (optional: as {}), ", c.name, c.default_from)
           : !c.default_value.empty() ? fmt::format("{} (optional: {}), ", c.name, c.default_value)
                                      : c.name + ", ";
  for (const auto& n : schema.inputs) out += n + ", ";
  return out + "backend, time_ms [, energy_j, framework, version, source]";
}

// One sample of one group: a row's identity for the duplicate check.
struct PointId {
  std::size_t group;
  std::vector<double> inputs;
  friend bool operator==(const PointId&, const PointId&) = default;
};
struct PointIdHash {
  std::size_t operator()(const PointId& p) const noexcept {
    std::size_t h = std::hash<std::size_t>{}(p.group);
    // -0.0 and 0.0 are one input value: they hash alike.
    for (const double v : p.inputs) h = h * 1099511628211ULL ^ std::hash<double>{}(v == 0 ? 0.0 : v);
    return h;
  }
};

}  // namespace detail::profile_csv

// The line reader of every costdsl CSV (profile tables here, measurement tables in
// tools/aiconfigurator.hpp), so both follow one set of rules (data/profiles/README.md):
// UTF-8 (a leading BOM skipped), LF or CRLF, '#' comments and blank lines skipped, no
// quotes, no control characters. Calls on_line(line_no, line, cells) for every other
// line, cells split at commas and trimmed; a violation throws DataError "FILE:LINE:COL: ...".
COSTDSL_DECL void for_each_csv_line(std::string_view text, std::string_view file_label, const CsvLineHandler& on_line) {
  namespace d = detail::profile_csv;
  auto fail = [&](std::size_t line, std::size_t col, const std::string& msg) -> DataError {
    return DataError(fmt::format("{}:{}:{}: {}", file_label, line, col, msg));
  };
  if (text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);  // a UTF-8 BOM
  std::vector<CsvCell> cells;
  std::size_t line_no = 0;
  std::size_t pos = 0;
  while (pos < text.size()) {
    const std::size_t eol = text.find('\n', pos);
    std::string_view line = text.substr(pos, eol == std::string_view::npos ? std::string_view::npos : eol - pos);
    pos = eol == std::string_view::npos ? text.size() : eol + 1;
    ++line_no;
    if (line.ends_with('\r')) line.remove_suffix(1);  // CRLF

    const std::string_view content = d::trim(line);
    if (content.empty() || content.front() == '#') continue;

    for (std::size_t i = 0; i < line.size();) {
      if (line[i] == '"')
        throw fail(line_no, i + 1, "quoted cells are not supported (found '\"'); cells may not contain commas");
      // A control character (NUL, a bare CR from classic-Mac line endings, ...) would end
      // or garble the message that quotes the cell, so it is named by its code here.
      const auto byte = static_cast<unsigned char>(line[i]);
      if (byte < 0x20 && byte != '\t')
        throw fail(line_no, i + 1,
                   fmt::format("control character 0x{:02X}{} inside a line; cells are text, lines end in LF or CRLF",
                               static_cast<unsigned>(byte), byte == '\r' ? " (a carriage return not before LF)" : ""));
      const std::size_t n = d::utf8_length(line, i);
      if (n == 0)
        throw fail(line_no, i + 1,
                   fmt::format("invalid UTF-8 byte 0x{:02X}; the file must be UTF-8",
                               static_cast<unsigned>(static_cast<unsigned char>(line[i]))));
      // A BOM past the start (files concatenated) is invisible: kept, it would become
      // part of a text cell and the row's key would silently match nothing.
      if (line.substr(i, n) == "\xEF\xBB\xBF")
        throw fail(line_no, i + 1, "byte-order mark (U+FEFF) after the start of the file; only a leading one is skipped");
      i += n;
    }

    cells.clear();
    for (std::size_t start = 0;;) {
      const std::size_t comma = line.find(',', start);
      const std::string_view raw = line.substr(start, comma == std::string_view::npos ? line.size() - start
                                                                                         : comma - start);
      const std::string_view t = d::trim(raw);
      const std::size_t lead = t.empty() ? 0 : static_cast<std::size_t>(t.data() - raw.data());
      cells.push_back(CsvCell{t, start + lead + 1});
      if (comma == std::string_view::npos) break;
      start = comma + 1;
    }

    on_line(line_no, line, std::span<const CsvCell>(cells));
  }
}

COSTDSL_DECL std::optional<std::int64_t> parse_csv_integer(std::string_view text) {
  return detail::profile_csv::parse_int(text);
}
COSTDSL_DECL std::optional<double> parse_csv_number(std::string_view text) {
  return detail::profile_csv::parse_double(text);
}

// Parses one table from text; `file_label` prefixes every message. Warnings (dropped
// rows, ignored energies, a table without rows) go to `warnings` (nullptr: ignore).
COSTDSL_DECL ProfileTable load_profile_csv_text(std::string_view text, std::string_view file_label,
                                          const ProfileSchema& schema, std::vector<std::string>* warnings) {
  namespace d = detail::profile_csv;
  using d::Role;
  d::check_schema(schema);
  auto fail = [&](std::size_t line, std::size_t col, const std::string& msg) -> DataError {
    return DataError(fmt::format("{}:{}:{}: {}", file_label, line, col, msg));
  };
  auto warn = [&](std::size_t line, std::size_t col, const std::string& msg) {
    if (warnings != nullptr) warnings->push_back(fmt::format("{}:{}:{}: {}", file_label, line, col, msg));
  };

  std::vector<d::Slot> slots;  // per header column
  std::vector<std::pair<std::size_t, std::size_t>> defaulted;  // (config column absent, the one it copies)
  std::vector<std::string> header;
  bool have_header = false, has_energy = false;
  std::size_t header_line = 0;
  ProfileTable table;
  // (config and backend, inputs) -> first line, to name both lines of a duplicate. Keys are
  // numbered as they first appear; consecutive rows mostly share one, compared to the last.
  std::map<ProfileKey, std::size_t> key_ids;
  ProfileKey last_key;
  std::size_t last_id = 0;
  std::unordered_map<d::PointId, std::size_t, d::PointIdHash> seen;
  // Each provenance column's text on the row above, for a cell that repeats it ("=").
  std::array<std::string, d::provenance_cols.size()> provenance_above;
  bool row_above = false;

  for_each_csv_line(text, file_label, [&](std::size_t line_no, std::string_view line, std::span<const CsvCell> cells) {
      if (!have_header) {
        have_header = true;
        header_line = line_no;
        std::vector<bool> config_seen(schema.config.size()), input_seen(schema.inputs.size());
        bool backend_seen = false, time_seen = false;
        for (std::size_t c = 0; c < cells.size(); ++c) {
          const std::string_view name = cells[c].text;
          if (name.empty()) throw fail(line_no, cells[c].col, fmt::format("header column {} has no name", c + 1));
          for (std::size_t k = 0; k < c; ++k)
            if (header[k] == name)
              throw fail(line_no, cells[c].col,
                         fmt::format("duplicate column '{}' (also header column {})", name, k + 1));
          d::Slot slot;
          bool known = false;
          for (std::size_t k = 0; k < schema.config.size() && !known; ++k)
            if (schema.config[k].name == name) slot = {Role::config, k}, config_seen[k] = true, known = true;
          for (std::size_t k = 0; k < schema.inputs.size() && !known; ++k)
            if (schema.inputs[k] == name) slot = {Role::input, k}, input_seen[k] = true, known = true;
          if (!known && name == d::backend_col) slot = {Role::backend, 0}, backend_seen = known = true;
          if (!known && name == d::time_col) slot = {Role::time, 0}, time_seen = known = true;
          if (!known && name == d::energy_col) slot = {Role::energy, 0}, has_energy = known = true;
          if (!known && std::find(d::provenance_cols.begin(), d::provenance_cols.end(), name) != d::provenance_cols.end())
            slot = {Role::provenance, static_cast<std::size_t>(
                                          std::find(d::provenance_cols.begin(), d::provenance_cols.end(), name) -
                                          d::provenance_cols.begin())},
            known = true;
          if (!known)
            throw fail(line_no, cells[c].col,
                       fmt::format("unknown column '{}' for kind '{}' (expected columns: {})", name, schema.kind,
                                   d::expected_columns(schema)));
          header.emplace_back(name);
          slots.push_back(slot);
        }
        auto missing = [&](std::string_view name) {
          return fail(line_no, 1,
                      fmt::format("missing column '{}' for kind '{}' (expected columns: {})", name, schema.kind,
                                  d::expected_columns(schema)));
        };
        for (std::size_t k = 0; k < schema.config.size(); ++k) {
          if (config_seen[k]) continue;
          if (!schema.config[k].has_default()) throw missing(schema.config[k].name);
          defaulted.emplace_back(k, schema.default_source(k));  // k itself: the constant default
        }
        for (std::size_t k = 0; k < schema.inputs.size(); ++k)
          if (!input_seen[k]) throw missing(schema.inputs[k]);
        if (!backend_seen) throw missing(d::backend_col);
        if (!time_seen) throw missing(d::time_col);
        table = ProfileTable(std::string(file_label), schema, has_energy);
        return;
      }

      if (cells.size() != header.size()) {
        const std::size_t col = cells.size() > header.size() ? cells[header.size()].col : line.size() + 1;
        throw fail(line_no, col,
                   fmt::format("row has {} cells but the header (line {}) has {} columns", cells.size(), header_line,
                               header.size()));
      }

      ProfileKey key;
      key.config.resize(schema.config.size());
      ProfilePoint point;
      point.inputs.resize(schema.inputs.size());
      point.line = line_no;
      std::optional<double> time;
      std::size_t time_col_no = 1;
      std::string_view time_text, framework, version;
      for (std::size_t c = 0; c < cells.size(); ++c) {
        const d::Cell& cell = cells[c];
        const d::Slot slot = slots[c];
        auto bad = [&](std::string_view rule) {
          return fail(line_no, cell.col, fmt::format("column '{}': '{}' {}", header[c], cell.text, rule));
        };
        switch (slot.role) {
          case Role::config:
            if (cell.text.empty()) throw bad("is empty; config cells need a value");
            if (schema.config[slot.index].type == ColumnType::integer) {
              const auto v = d::parse_int(cell.text);
              if (!v && d::is_decimal_integer(cell.text)) throw bad("is out of range for a 64-bit integer");
              if (!v) throw bad("is not an integer");
              key.config[slot.index] = std::to_string(*v);
            } else {
              key.config[slot.index] = std::string(cell.text);
            }
            break;
          case Role::input: {
            const auto v = d::parse_double(cell.text);
            if (!v) throw bad("is not a number");
            if (!std::isfinite(*v)) throw bad("is not a finite number; input cells locate the sample");
            point.inputs[slot.index] = *v;
            break;
          }
          case Role::backend:
            if (cell.text.empty()) throw bad("is empty; every row names its backend");
            key.backend = std::string(cell.text);
            break;
          case Role::time:
            time = d::parse_double(cell.text);
            if (!time) throw bad("is not a number");
            time_col_no = cell.col;
            time_text = cell.text;
            break;
          case Role::provenance: {  // no rule on its text; framework and version name the group's source
            std::string& above = provenance_above[slot.index];
            if (cell.text == d::ditto) {
              if (!row_above) throw bad("repeats the cell above it, but this is the first row");
            } else if (cell.text != above) {
              above = std::string(cell.text);
            }
            if (slot.index == 0) framework = above;
            if (slot.index == 1) version = above;
            break;
          }
          case Role::energy: {
            if (cell.text.empty()) break;  // not measured
            const auto v = d::parse_double(cell.text);
            if (!v) throw bad("is not a number");
            if (std::isinf(*v) || *v < 0)
              warn(line_no, cell.col,
                   fmt::format("column 'energy_j': '{}' is not a finite value >= 0; energy ignored for this row",
                               cell.text));
            else
              point.energy_j = *v;  // NaN stays NaN: not measured
            break;
          }
        }
      }

      row_above = true;
      for (const auto& [k, from] : defaulted)
        key.config[k] = from == k ? schema.config[k].default_value : key.config[from];
      if (key_ids.empty() || !(key == last_key)) {
        last_id = key_ids.try_emplace(key, key_ids.size()).first->second;
        last_key = key;
      }
      auto [it, inserted] = seen.try_emplace(d::PointId{last_id, point.inputs}, line_no);
      if (!inserted) {
        std::string where;
        for (std::size_t k = 0; k < schema.config.size(); ++k)
          where += fmt::format("{}={}, ", schema.config[k].name, key.config[k]);
        for (std::size_t k = 0; k < schema.inputs.size(); ++k)
          where += fmt::format("{}={}, ", schema.inputs[k], point.inputs[k]);
        throw fail(line_no, 1,
                   fmt::format("duplicate row: ({}backend={}) was already measured on line {}", where, key.backend,
                               it->second));
      }

      point.time_ms = *time;
      if (!std::isfinite(point.time_ms) || point.time_ms <= 0) {
        const char* why = !std::isfinite(point.time_ms) ? "is not finite" : point.time_ms < 0 ? "is negative" : "is 0";
        warn(line_no, time_col_no,
             fmt::format("dropped row: column 'time_ms': '{}' {}; a measured time must be finite and > 0", time_text,
                         why));
        return;
      }
      const std::string provenance =
          framework.empty() || version.empty() ? std::string(framework.empty() ? version : framework)
                                               : std::string(framework) + " " + std::string(version);
      table.add(key, std::move(point), provenance);
  });

  if (!have_header) throw fail(1, 1, "empty file: no header line (only blank lines and comments)");
  if (table.empty()) warn(header_line, 1, "the table has no usable rows; every lookup will find nothing");
  return table;
}

// Reads and parses one table file; the path names the file in every message.
COSTDSL_DECL ProfileTable load_profile_csv(const std::filesystem::path& path, const ProfileSchema& schema,
                                     std::vector<std::string>* warnings) {
  return load_profile_csv_text(detail::read_text_file(path, "profile table"), path.string(), schema, warnings);
}


}  // namespace costdsl
