#pragma once
// The columns of one kernel kind's profile table (format: data/profiles/README.md).
#include <cstdint>
#include <string>
#include <vector>

namespace costdsl {

enum class ColumnType : std::uint8_t { text, integer };

struct Column {
  std::string name;
  ColumnType type = ColumnType::text;
};

// What a kind's table holds: its config fields (the identity of a measured kernel
// instance), its input fields (the per-call shape, numeric), plus the fixed columns
// `backend`, `time_ms` and optional `energy_j`.
struct ProfileSchema {
  std::string kind;
  std::vector<Column> config;
  std::vector<std::string> inputs;
};

}  // namespace costdsl
