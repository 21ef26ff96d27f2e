#pragma once
// The columns of one kernel kind's profile table (format: data/profiles/README.md).
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace costdsl {

enum class ColumnType : std::uint8_t { text, integer };

struct Column {
  Column() = default;
  Column(std::string name_, ColumnType type_ = ColumnType::text, std::string default_from_ = {},
         std::string default_value_ = {})
      : name(std::move(name_)),
        type(type_),
        default_from(std::move(default_from_)),
        default_value(std::move(default_value_)) {}

  std::string name;
  ColumnType type = ColumnType::text;
  // Non-empty: a table without this column measured every row at the value of that other
  // config column (fused_moe's weight_dtype: tables written before it was a column timed
  // weights in the activations' dtype).
  std::string default_from;
  // Non-empty: a table without this column measured every row at this value (gemm's
  // input_dtype: every measured sequence quantized bf16 activations itself). A row at
  // another value is a variant derived from the measured one (the importer's).
  std::string default_value;

  bool has_default() const noexcept { return !default_from.empty() || !default_value.empty(); }
};

// What a kind's table holds: its config fields (the identity of a measured kernel
// instance), its input fields (the per-call shape, numeric), plus the fixed columns
// `backend`, `time_ms` and optional `energy_j`.
struct ProfileSchema {
  std::string kind;
  std::vector<Column> config;
  std::vector<std::string> inputs;

  // The config column config[k] takes its value from where a table lacks it
  // (Column::default_from); k itself for a column without a default or with a constant one
  // (Column::default_value).
  std::size_t default_source(std::size_t k) const {
    for (std::size_t i = 0; i < config.size() && !config[k].default_from.empty(); ++i)
      if (config[i].name == config[k].default_from) return i;
    return k;
  }
};

}  // namespace costdsl
