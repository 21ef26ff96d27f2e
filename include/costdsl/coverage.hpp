#pragma once
// Coverage flags: why a number may not be a plain measurement (design §4).
#include <cstdint>
#include <string>
#include <vector>

namespace costdsl {

enum class Coverage : std::uint8_t {
  none = 0,
  extrapolated = 1 << 0,  // the query left the measured grid
  no_coverage = 1 << 1,   // no data at all; the number is not to be trusted
  analytic = 1 << 2,      // the roofline model produced it, not a measurement
  renormalized = 1 << 3,  // an interpolation corner was not measured: estimated, or weights renormalized
  scaled = 1 << 4,        // no table for this config: a measured neighbour's, times the roofline's time ratio
};

constexpr Coverage operator|(Coverage a, Coverage b) noexcept {
  return static_cast<Coverage>(static_cast<std::uint8_t>(a) | static_cast<std::uint8_t>(b));
}
constexpr Coverage& operator|=(Coverage& a, Coverage b) noexcept { return a = a | b; }
constexpr bool has(Coverage set, Coverage flag) noexcept {
  return (static_cast<std::uint8_t>(set) & static_cast<std::uint8_t>(flag)) != 0;
}

// Flag names as they appear in JSON and text output ("EXTRAPOLATED", ...).
inline std::vector<std::string> coverage_names(Coverage c) {
  std::vector<std::string> out;
  if (has(c, Coverage::extrapolated)) out.emplace_back("EXTRAPOLATED");
  if (has(c, Coverage::no_coverage)) out.emplace_back("NO_COVERAGE");
  if (has(c, Coverage::analytic)) out.emplace_back("ANALYTIC");
  if (has(c, Coverage::renormalized)) out.emplace_back("RENORMALIZED");
  if (has(c, Coverage::scaled)) out.emplace_back("SCALED");
  return out;
}

}  // namespace costdsl
