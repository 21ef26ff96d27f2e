#pragma once
// The off-grid policy of a 2D interpolation table (design §8).
#include <cstdint>
#include <string_view>

namespace costdsl::interp {

// How a 2D table answers a query outside its grid. Every 2D kernel declares one,
// because naive bilinear extrapolation grows the x·y cross term quadratically (it was
// 78x too high 16x off-grid on an all-to-all).
enum class OffGrid : std::uint8_t {
  // The axes multiply into the work (attention: work = A·B): the edge value scales by
  // x/x_edge for each axis that left the grid.
  product,
  // The axes are additive loads: edge value + per-axis slopes fitted (least squares)
  // on the band of the 3 outermost grid points, averaged over the other axis.
  weighted,
  // Hold the edge value.
  clamp,
};

constexpr std::string_view name(OffGrid p) noexcept {
  switch (p) {
    case OffGrid::product: return "product";
    case OffGrid::weighted: return "weighted";
    case OffGrid::clamp: return "clamp";
  }
  return "?";
}

}  // namespace costdsl::interp
