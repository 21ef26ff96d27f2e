#pragma once
// Numbers in error messages without fmt (serve/ stays as light as the evaluation
// headers): the shortest text that reads back to the same double ("0.5", "1", as
// costdsl::detail::str prints it), or a fixed number of decimals.
#include <cstdio>
#include <string>

#include "costdsl/detail/str.hpp"

namespace costdsl::serve::detail {

inline std::string shortest(double v) { return costdsl::detail::str(v); }

inline std::string fixed(double v, int decimals) {
  char buf[64];
  const int n = std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return std::string(buf, n > 0 ? static_cast<std::size_t>(n) : 0);
}

// Bytes as "12.3 GB" (decimal units, as GPU memory is sold).
inline std::string gigabytes(double bytes) { return fixed(bytes / 1e9, 1) + " GB"; }

}  // namespace costdsl::serve::detail
