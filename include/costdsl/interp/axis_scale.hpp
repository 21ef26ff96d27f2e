#pragma once
// The weighting of an interpolation axis: kept apart from axis.hpp so that kernel
// definitions (kernels/*.hpp) can declare their axes' scales without the grid code.
#include <cstdint>
#include <string_view>

namespace costdsl::interp {

// How weights are computed between grid points. `log` suits geometric grids
// (1, 2, 4, ... tokens): a query halfway in log space lands halfway between the
// neighbours. `detect` is resolved at construction by looks_geometric().
enum class AxisScale : std::uint8_t { linear, log, detect };

constexpr std::string_view name(AxisScale s) noexcept {
  switch (s) {
    case AxisScale::linear: return "linear";
    case AxisScale::log: return "log";
    case AxisScale::detect: return "detect";
  }
  return "?";
}

}  // namespace costdsl::interp
