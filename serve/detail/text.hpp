#pragma once
// Numbers in error messages without fmt (serve/ stays plain std): the shortest text
// that reads back to the same double ("0.5", "1"), or a fixed number of decimals.
#include <charconv>
#include <cstdio>
#include <string>

namespace costdsl::serve::detail {

inline std::string shortest(double v) {
  char buf[32];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}

inline std::string fixed(double v, int decimals) {
  char buf[64];
  const int n = std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return std::string(buf, n > 0 ? static_cast<std::size_t>(n) : 0);
}

// Bytes as "12.3 GB" (decimal units, as GPU memory is sold).
inline std::string gigabytes(double bytes) { return fixed(bytes / 1e9, 1) + " GB"; }

}  // namespace costdsl::serve::detail
