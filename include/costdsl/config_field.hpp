#pragma once
// One field of a kernel's config as the manifest and describe() show it.
#include <string>
#include <variant>
#include <vector>

#include "costdsl/dim.hpp"

namespace costdsl {

// One field of a kernel's config as the manifest and describe() show it: a dim
// (with provenance), a text (dtype, gpu), a number, or a list (backends).
struct ConfigField {
  std::string name;
  std::variant<Dim, std::string, double, std::vector<std::string>> value;
};

}  // namespace costdsl
