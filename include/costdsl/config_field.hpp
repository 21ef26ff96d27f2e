#pragma once
// One field of a kernel's config as the manifest and describe() show it.
#include <string>
#include <variant>
#include <vector>

#include "costdsl/dim.hpp"

namespace costdsl {

// One field of a kernel's config as the manifest and describe() show it: a dim
// (with provenance), a text (dtype, gpu), a number, or a list (backends).
// tabled: the field is a column of its kind's profile tables (false: it shapes the work
// but the tables do not key on it, see untabled_field in kernel.hpp).
struct ConfigField {
  std::string name;
  std::variant<Dim, std::string, double, std::vector<std::string>> value;
  bool tabled = true;
};

}  // namespace costdsl
