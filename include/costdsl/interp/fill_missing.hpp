#pragma once
// Estimating the cells a measured grid lacks (fit time, never per query), in a space that
// varies slowly: a cell's measured time over a model time of the same cell (a kernel's
// roofline, an efficiency) changes little between neighbours, where the time itself grows
// with the work. Renormalizing raw times over the corners present instead gives a
// one-sided answer: a prefill cell between a batch-1 line and a missing batch-4 one took
// its batch-1 neighbour's time twice over.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <limits>
#include <vector>

#include "costdsl/interp/grid.hpp"

namespace costdsl::interp {
namespace detail {

// Where a point sits along an axis for interpolating between two cells: log on a log axis.
inline double axis_position(const Axis& a, std::size_t i) {
  return a.scale() == AxisScale::log ? std::log(a[i]) : a[i];
}

// Fills every missing cell of `g` whose model time is positive: its efficiency (measured /
// model time) from the measured cells on its grid lines, times its own model time, marked
// cell_estimated. Along each axis the nearest measured cells on either side give an
// estimate (interpolated between two, held from one), and the axes' estimates average with
// weights 1 / (index distance to the nearest of them); a cell with no measured cell on any
// of its lines takes the efficiency of the nearest measured cell (index steps, summed over
// the axes). Only measured cells are sources, so the order cells are filled in is
// immaterial. `model_time(coords)` is any positive time model in any unit (it cancels);
// a cell where it is not positive and finite stays missing. Returns the cells filled.
template <std::size_t D, class ModelTime>
std::size_t fill_missing(Grid<D>& g, const ModelTime& model_time) {
  const std::size_t cells = g.values.size();
  constexpr double none = std::numeric_limits<double>::quiet_NaN();
  std::vector<double> model(cells, none), eff(cells, none);
  bool any_missing = false;
  for (std::size_t i = 0; i < cells; ++i) any_missing = any_missing || g.valid[i] == cell_missing;
  if (!any_missing) return 0;
  for (std::size_t i = 0; i < cells; ++i) {
    const double m = model_time(g.coords(i));
    if (!(m > 0) || !std::isfinite(m)) continue;
    model[i] = m;
    if (g.valid[i] == cell_measured) eff[i] = g.values[i] / m;
  }
  std::size_t filled = 0;
  for (std::size_t i = 0; i < cells; ++i) {
    if (g.valid[i] != cell_missing || std::isnan(model[i])) continue;
    const auto ix = g.unflatten(i);
    double sum = 0, weights = 0;
    for (std::size_t d = 0; d < D; ++d) {
      const std::size_t n = g.axes[d].size(), s = g.strides[d];
      std::size_t lo = ix[d], hi = ix[d];
      bool has_lo = false, has_hi = false;
      while (lo > 0 && !has_lo) has_lo = !std::isnan(eff[i - (ix[d] - --lo) * s]);
      while (hi + 1 < n && !has_hi) has_hi = !std::isnan(eff[i + (++hi - ix[d]) * s]);
      if (!has_lo && !has_hi) continue;
      const double e_lo = has_lo ? eff[i - (ix[d] - lo) * s] : 0, e_hi = has_hi ? eff[i + (hi - ix[d]) * s] : 0;
      double e = has_lo ? e_lo : e_hi;
      if (has_lo && has_hi) {
        const double x = axis_position(g.axes[d], ix[d]);
        const double x0 = axis_position(g.axes[d], lo), x1 = axis_position(g.axes[d], hi);
        e = e_lo + (e_hi - e_lo) * (x - x0) / (x1 - x0);
      }
      const std::size_t near = std::min(has_lo ? ix[d] - lo : n, has_hi ? hi - ix[d] : n);
      sum += e / static_cast<double>(near);
      weights += 1 / static_cast<double>(near);
    }
    if (weights == 0) {  // nothing measured on its lines: the nearest measured cell
      std::size_t best = cells, best_dist = std::numeric_limits<std::size_t>::max();
      for (std::size_t j = 0; j < cells; ++j) {
        if (std::isnan(eff[j])) continue;
        const auto jx = g.unflatten(j);
        std::size_t dist = 0;
        for (std::size_t d = 0; d < D; ++d) dist += jx[d] > ix[d] ? jx[d] - ix[d] : ix[d] - jx[d];
        if (dist < best_dist) best = j, best_dist = dist;
      }
      if (best == cells) continue;  // no measured cell has a model time
      sum = eff[best];
      weights = 1;
    }
    const double v = sum / weights * model[i];
    if (!(v >= 0) || !std::isfinite(v)) continue;
    g.values[i] = v;
    g.valid[i] = cell_estimated;
    ++filled;
  }
  return filled;
}

}  // namespace detail
}  // namespace costdsl::interp
