#pragma once
// Bilinear interpolation over two independently sorted axes with a validity mask
// (design §8). A corner estimated at fit time (estimate_missing) or lost (renormalized
// over the surviving ones) flags RENORMALIZED;
// no valid corner, a NaN/infinite query or an empty table gives NO_COVERAGE.
// Off the grid each table applies its declared OffGrid policy (EXTRAPOLATED).
#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "costdsl/coverage.hpp"
#include "costdsl/error.hpp"
#include "costdsl/interp/axis.hpp"
#include "costdsl/interp/grid.hpp"
#include "costdsl/interp/fill_missing.hpp"
#include "costdsl/interp/grid_fit.hpp"
#include "costdsl/interp/off_grid.hpp"

namespace costdsl::interp {

class Interp2D {
 public:
  struct Sample {
    double x = 0;
    double y = 0;
    double value = 0;
  };

  // Slopes (value per unit of the axis) the weighted policy extends each edge with.
  struct EdgeSlopes {
    double low = 0;   // fitted on the first grid points, used below the grid
    double high = 0;  // fitted on the last grid points, used above it
  };

  // The empty table: every query is NO_COVERAGE.
  Interp2D() = default;

  // values[ix * y.size() + iy]; valid: same layout, 0 = missing cell (empty: all valid).
  // Valid cells must hold finite values >= 0 (else DataError).
  Interp2D(Axis x, Axis y, std::vector<double> values, std::vector<std::uint8_t> valid, OffGrid off_grid,
           std::vector<std::string>* warnings = nullptr, std::string_view label = "interp2d")
      : grid_(detail::make_grid<2>({std::move(x), std::move(y)}, std::move(values), std::move(valid), label)),
        off_grid_(off_grid) {
    fit_slopes(warnings, label);
  }

  // Builds the table from measured points (see detail::fit_grid): bad samples dropped
  // with a warning, cells no sample reached are missing, duplicates are a DataError.
  static Interp2D fit(std::span<const Sample> samples, const AxisSpec& x, const AxisSpec& y, OffGrid off_grid,
                      std::vector<std::string>* warnings = nullptr, std::string_view label = "interp2d") {
    std::vector<std::array<double, 3>> raw;
    raw.reserve(samples.size());
    for (const Sample& s : samples) raw.push_back({s.x, s.y, s.value});
    Interp2D out;
    out.off_grid_ = off_grid;
    out.grid_ = detail::fit_grid<2>(std::span<const std::array<double, 3>>(raw), {x, y}, warnings, label);
    if (!out.grid_.empty()) out.fit_slopes(warnings, label);
    return out;
  }

  Interpolated query(double x, double y) const noexcept {
    if (grid_.empty() || !std::isfinite(x) || !std::isfinite(y)) return Interpolated{0.0, Coverage::no_coverage};
    const Axis& ax = grid_.axes[0];
    const Axis& ay = grid_.axes[1];
    const double cx = ax.clamp(x), cy = ay.clamp(y);
    const AxisHit hx = ax.locate(cx), hy = ay.locate(cy);
    Coverage cov = Coverage::none;
    double v = 0;
    const std::size_t sx = grid_.strides[0];
    const std::size_t i00 = hx.lo * sx + hy.lo, i01 = hx.lo * sx + hy.hi;
    const std::size_t i10 = hx.hi * sx + hy.lo, i11 = hx.hi * sx + hy.hi;
    const auto& ok = grid_.valid;
    if ((ok[i00] & ok[i01] & ok[i10] & ok[i11] & cell_measured) != 0) {  // the common case: all four measured
      const auto& g = grid_.values;
      const double lo = (1 - hy.weight) * g[i00] + hy.weight * g[i01];
      const double hi = (1 - hy.weight) * g[i10] + hy.weight * g[i11];
      v = (1 - hx.weight) * lo + hx.weight * hi;
    } else if (!detail::blend_masked<2>(grid_, {hx, hy}, v, cov)) {
      return Interpolated{0.0, Coverage::no_coverage};
    }
    const bool off_x = cx != x, off_y = cy != y;
    if (off_x || off_y) {
      cov |= Coverage::extrapolated;
      switch (off_grid_) {
        case OffGrid::clamp: break;
        case OffGrid::product:
          // An edge at or below 0 gives no ratio to scale by: hold the edge value.
          if (off_x && cx > 0) v *= x / cx;
          if (off_y && cy > 0) v *= y / cy;
          break;
        case OffGrid::weighted:
          v += (x < cx ? slopes_[0].low : slopes_[0].high) * (x - cx);
          v += (y < cy ? slopes_[1].low : slopes_[1].high) * (y - cy);
          break;
      }
    }
    return detail::finish(v, cov);
  }
  Interpolated operator()(double x, double y) const noexcept { return query(x, y); }

  // Estimates the missing cells from their measured neighbours' efficiency under
  // `model_time(std::array<double, 2>)` (interp/fill_missing.hpp); returns how many.
  template <class ModelTime>
  std::size_t estimate_missing(const ModelTime& model_time) {
    return detail::fill_missing<2>(grid_, model_time);
  }

  // This table with every cell's value times factor(std::array<double, 2>), its edge
  // slopes refitted (detail::scale_cells).
  template <class Factor>
  Interp2D scaled(const Factor& factor) const {
    Interp2D out = *this;
    detail::scale_cells<2>(out.grid_, factor);
    out.fit_slopes(nullptr, "");
    return out;
  }

  bool empty() const noexcept { return grid_.empty(); }
  OffGrid off_grid() const noexcept { return off_grid_; }
  const Axis& x_axis() const noexcept { return grid_.axes[0]; }
  const Axis& y_axis() const noexcept { return grid_.axes[1]; }
  // Measured (not missing, not estimated).
  bool valid(std::size_t ix, std::size_t iy) const noexcept {
    return grid_.valid[ix * grid_.strides[0] + iy] == cell_measured;
  }
  bool estimated(std::size_t ix, std::size_t iy) const noexcept {
    return grid_.valid[ix * grid_.strides[0] + iy] == cell_estimated;
  }
  double value(std::size_t ix, std::size_t iy) const noexcept { return grid_.values[ix * grid_.strides[0] + iy]; }
  // axis 0 = x, 1 = y.
  EdgeSlopes slopes(std::size_t axis) const noexcept { return slopes_[axis]; }

 private:
  static constexpr std::size_t band = 3;

  // Least-squares slope of the valid points of one grid line inside [first, last);
  // false when fewer than two are valid.
  bool line_slope(std::size_t d, std::size_t other, std::size_t first, std::size_t last, double& slope) const {
    const std::size_t o = 1 - d;
    double sx = 0, sv = 0;
    std::size_t n = 0;
    std::array<double, band> xs{}, vs{};
    for (std::size_t k = first; k < last; ++k) {
      const std::size_t flat = k * grid_.strides[d] + other * grid_.strides[o];
      if (grid_.valid[flat] != cell_measured) continue;
      xs[n] = grid_.axes[d][k];
      vs[n] = grid_.values[flat];
      sx += xs[n];
      sv += vs[n];
      ++n;
    }
    if (n < 2) return false;
    const double mx = sx / static_cast<double>(n), mv = sv / static_cast<double>(n);
    double num = 0, den = 0;
    for (std::size_t k = 0; k < n; ++k) {
      num += (xs[k] - mx) * (vs[k] - mv);
      den += (xs[k] - mx) * (xs[k] - mx);
    }
    slope = num / den;
    return true;
  }

  // Fits the weighted policy's edge slopes: per axis and edge, the mean over the other
  // axis of each grid line's least-squares slope on its `band` outermost points. A
  // negative slope is clamped to 0: for an additive load more work never takes less
  // time, so a falling band is noise and extending it would drive the value to 0.
  void fit_slopes(std::vector<std::string>* warnings, std::string_view label) {
    for (std::size_t d = 0; d < 2; ++d) {
      const std::size_t n = grid_.axes[d].size();
      const std::size_t lines = grid_.axes[1 - d].size();
      const std::size_t k = std::min(band, n);
      for (int edge = 0; edge < 2; ++edge) {
        const std::size_t first = edge == 0 ? 0 : n - k;
        double sum = 0;
        std::size_t used = 0;
        for (std::size_t line = 0; line < lines && n >= 2; ++line) {
          double s = 0;
          if (line_slope(d, line, first, first + k, s)) {
            sum += s;
            ++used;
          }
        }
        const double slope = used > 0 ? std::max(0.0, sum / static_cast<double>(used)) : 0.0;
        (edge == 0 ? slopes_[d].low : slopes_[d].high) = slope;
        if (used == 0 && off_grid_ == OffGrid::weighted)
          detail::warn(warnings, std::string(label) + ": weighted off-grid policy has no two valid points to fit a " +
                                     (edge == 0 ? "low" : "high") + "-edge slope along " + grid_.axes[d].name() +
                                     "; off-grid queries hold the edge value along it");
      }
    }
  }

  detail::Grid<2> grid_;
  OffGrid off_grid_ = OffGrid::clamp;
  std::array<EdgeSlopes, 2> slopes_{};
};

}  // namespace costdsl::interp
