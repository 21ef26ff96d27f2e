#pragma once
// std::hash for Dim (by value, like its equality), for unordered containers of dims.
// Apart from dim.hpp because <functional> is a heavy include for every model.
#include <cstdint>
#include <functional>

#include "costdsl/dim.hpp"

template <>
struct std::hash<costdsl::Dim> {
  std::size_t operator()(const costdsl::Dim& d) const noexcept {
    return std::hash<std::uint64_t>{}(d.value);
  }
};
