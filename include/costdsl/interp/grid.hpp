#pragma once
// The D-dimensional grid an interpolating table holds (values row-major, a validity mask
// for the missing cells 2D and 3D tables may have), its direct construction, and the
// masked corner blend a query falls back to when a corner is missing.
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
#include "costdsl/detail/inline.hpp"
#include "costdsl/error.hpp"
#include "costdsl/interp/axis.hpp"

namespace costdsl::interp {

// What a grid cell holds (Grid::valid). An estimated cell was missing from the
// measurements and filled from its measured neighbours (interp/fill_missing.hpp): a
// query that leans on it answers, flagged RENORMALIZED like a renormalized one.
inline constexpr std::uint8_t cell_missing = 0, cell_measured = 1, cell_estimated = 2;

namespace detail {

// Clamp at >= 0 and turn a non-finite result (only absurd queries overflow) into
// NO_COVERAGE, so NaN never leaves an interpolator.
COSTDSL_ALWAYS_INLINE Interpolated finish(double v, Coverage cov) noexcept {
  if (!std::isfinite(v)) return Interpolated{0.0, cov | Coverage::no_coverage};
  return Interpolated{v < 0 ? 0.0 : v, cov};
}

inline bool finite_all(std::span<const double> xs) noexcept {
  for (double x : xs)
    if (!std::isfinite(x)) return false;
  return true;
}

// A D-dimensional grid: values in row-major order (the last axis varies fastest) and
// a validity mask of cell_* states (missing cells are allowed in 2D/3D).
template <std::size_t D>
struct Grid {
  std::array<Axis, D> axes{};
  std::array<std::size_t, D> strides{};
  std::vector<double> values;
  std::vector<std::uint8_t> valid;

  bool empty() const noexcept { return values.empty(); }

  void set_strides() noexcept {
    std::size_t s = 1;
    for (std::size_t d = D; d-- > 0;) {
      strides[d] = s;
      s *= axes[d].size();
    }
  }

  // Where a flat index sits along each axis.
  std::array<std::size_t, D> unflatten(std::size_t flat) const noexcept {
    std::array<std::size_t, D> ix{};
    for (std::size_t d = 0; d < D; ++d) {
      ix[d] = flat / strides[d];
      flat %= strides[d];
    }
    return ix;
  }

  // A cell's coordinates on the axes.
  std::array<double, D> coords(std::size_t flat) const noexcept {
    const auto ix = unflatten(flat);
    std::array<double, D> at{};
    for (std::size_t d = 0; d < D; ++d) at[d] = axes[d][ix[d]];
    return at;
  }

  std::string describe(const std::array<std::size_t, D>& ix) const {
    std::string s = "(";
    for (std::size_t d = 0; d < D; ++d) {
      if (d > 0) s += ", ";
      s += axes[d].name() + "=" + num(axes[d][ix[d]]);
    }
    return s + ")";
  }
};

// Builds a grid from given axes and values; checks sizes and that every valid cell
// holds a finite value >= 0 (direct construction skips the fit's drop-and-warn step,
// so bad numbers here are a caller's bug).
template <std::size_t D>
Grid<D> make_grid(std::array<Axis, D> axes, std::vector<double> values, std::vector<std::uint8_t> valid,
                  std::string_view label) {
  Grid<D> g;
  g.axes = std::move(axes);
  std::size_t cells = 1;
  for (const Axis& a : g.axes) {
    if (a.empty()) throw DataError(std::string(label) + ": axis has no grid points");
    cells *= a.size();
  }
  if (valid.empty()) valid.assign(values.size(), cell_measured);
  if (values.size() != cells || valid.size() != cells)
    throw DataError(std::string(label) + ": grid has " + std::to_string(cells) + " cells but " +
                    std::to_string(values.size()) + " values and " + std::to_string(valid.size()) + " mask entries");
  g.values = std::move(values);
  g.valid = std::move(valid);
  g.set_strides();
  for (std::size_t i = 0; i < cells; ++i) {
    if (g.valid[i] && !(std::isfinite(g.values[i]) && g.values[i] >= 0))
      throw DataError(std::string(label) + ": cell " + g.describe(g.unflatten(i)) + " holds " + num(g.values[i]) +
                      "; values must be finite and >= 0");
    if (!g.valid[i]) g.values[i] = 0;  // never read, but keep the array finite
    g.valid[i] = g.valid[i] ? cell_measured : cell_missing;  // a caller's mask says measured or not
  }
  return g;
}

// Multiplies every cell that holds a value by factor(its coordinates) (a table measured
// for one config, rescaled to another: Kernel's SCALED tables). A factor that is not
// finite and >= 0 leaves the cell missing.
template <std::size_t D, class Factor>
void scale_cells(Grid<D>& g, const Factor& factor) {
  for (std::size_t i = 0; i < g.values.size(); ++i) {
    if (g.valid[i] == cell_missing) continue;
    const double f = factor(g.coords(i));
    const double v = g.values[i] * f;
    if (std::isfinite(v) && v >= 0 && std::isfinite(f)) {
      g.values[i] = v;
    } else {
      g.values[i] = 0;
      g.valid[i] = cell_missing;
    }
  }
}

// Blends the 2^D corners of the cell the hits select when some corner is not measured
// (the interpolators inline the all-measured case themselves). Corner weights are
// products of the per-axis weights (outside [0, 1] when extrapolating). An estimated
// corner counts with its value; a missing one's weight goes to v̂, the average of the
// usable corners under the in-grid (clamped) weights: inside the grid this is exactly
// renormalizing over the surviving corners, and off the grid it cannot divide by a
// near-zero weight sum. Either sets RENORMALIZED, unless the corner has no weight at
// this query. Returns false when no corner is usable.
template <std::size_t D>
bool blend_masked(const Grid<D>& g, const std::array<AxisHit, D>& hits, double& out, Coverage& cov) noexcept {
  double sum = 0, fill_num = 0, fill_den = 0, mean = 0, lost_w = 0;
  std::size_t count = 0;
  bool lost = false, leaned = false;
  for (std::size_t c = 0; c < (std::size_t{1} << D); ++c) {
    double w = 1, wc = 1;  // wc: the weight with every axis weight clamped into [0, 1]
    std::size_t flat = 0;
    for (std::size_t d = 0; d < D; ++d) {
      const bool up = ((c >> d) & 1U) != 0;
      const double t = hits[d].weight, tc = std::clamp(t, 0.0, 1.0);
      w *= up ? t : 1 - t;
      wc *= up ? tc : 1 - tc;
      flat += (up ? hits[d].hi : hits[d].lo) * g.strides[d];
    }
    const double v = g.values[flat];
    if (g.valid[flat] != cell_missing) {
      sum += w * v;
      fill_num += wc * v;
      fill_den += wc;
      mean += v;
      ++count;
      leaned = leaned || (g.valid[flat] == cell_estimated && (w != 0 || wc != 0));
    } else {
      lost_w += w;
      lost = lost || w != 0 || wc != 0;
    }
  }
  if (count == 0) return false;
  out = sum;
  if (leaned) cov |= Coverage::renormalized;
  if (!lost) return true;
  // A query exactly on a missing grid point gives the usable corners zero weight: fall
  // back to their plain mean.
  const double fill = fill_den > 0 ? fill_num / fill_den : mean / static_cast<double>(count);
  out = sum + lost_w * fill;
  cov |= Coverage::renormalized;
  return true;
}

}  // namespace detail
}  // namespace costdsl::interp
