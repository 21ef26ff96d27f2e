#pragma once
// Trilinear interpolation over three independently sorted axes with a validity mask
// (design §8). A corner estimated at fit time (estimate_missing) or lost (renormalized
// over the surviving ones) flags RENORMALIZED;
// no valid corner, a NaN/infinite query or an empty table gives NO_COVERAGE. Off the
// grid each axis extends its edge segment linearly (EXTRAPOLATED). Output >= 0.
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

namespace costdsl::interp {

class Interp3D {
 public:
  struct Sample {
    double x = 0;
    double y = 0;
    double z = 0;
    double value = 0;
  };

  // The empty table: every query is NO_COVERAGE.
  Interp3D() = default;

  // values[(ix * y.size() + iy) * z.size() + iz]; valid: same layout, 0 = missing cell
  // (empty: all valid). Valid cells must hold finite values >= 0 (else DataError).
  Interp3D(Axis x, Axis y, Axis z, std::vector<double> values, std::vector<std::uint8_t> valid,
           std::string_view label = "interp3d")
      : grid_(detail::make_grid<3>({std::move(x), std::move(y), std::move(z)}, std::move(values), std::move(valid),
                                   label)) {}

  // Builds the table from measured points (see detail::fit_grid).
  static Interp3D fit(std::span<const Sample> samples, const AxisSpec& x, const AxisSpec& y, const AxisSpec& z,
                      std::vector<std::string>* warnings = nullptr, std::string_view label = "interp3d") {
    std::vector<std::array<double, 4>> raw;
    raw.reserve(samples.size());
    for (const Sample& s : samples) raw.push_back({s.x, s.y, s.z, s.value});
    Interp3D out;
    out.grid_ = detail::fit_grid<3>(std::span<const std::array<double, 4>>(raw), {x, y, z}, warnings, label);
    return out;
  }

  Interpolated query(double x, double y, double z) const noexcept {
    if (grid_.empty() || !std::isfinite(x) || !std::isfinite(y) || !std::isfinite(z))
      return Interpolated{0.0, Coverage::no_coverage};
    const std::array<AxisHit, 3> hits{grid_.axes[0].locate(x), grid_.axes[1].locate(y), grid_.axes[2].locate(z)};
    Coverage cov = Coverage::none;
    if (hits[0].extrapolated || hits[1].extrapolated || hits[2].extrapolated) cov |= Coverage::extrapolated;
    double v = 0;
    const auto& [hx, hy, hz] = hits;
    const std::size_t sx = grid_.strides[0], sy = grid_.strides[1];
    const std::array<std::size_t, 4> rows{hx.lo * sx + hy.lo * sy, hx.lo * sx + hy.hi * sy, hx.hi * sx + hy.lo * sy,
                                          hx.hi * sx + hy.hi * sy};
    const auto& ok = grid_.valid;
    unsigned all = cell_measured;
    for (std::size_t r : rows) all &= ok[r + hz.lo] & ok[r + hz.hi];
    if (all != 0) {  // the common case: a fully measured cell
      const auto& g = grid_.values;
      std::array<double, 4> along_z{};
      for (std::size_t k = 0; k < 4; ++k) along_z[k] = (1 - hz.weight) * g[rows[k] + hz.lo] + hz.weight * g[rows[k] + hz.hi];
      const double lo = (1 - hy.weight) * along_z[0] + hy.weight * along_z[1];
      const double hi = (1 - hy.weight) * along_z[2] + hy.weight * along_z[3];
      v = (1 - hx.weight) * lo + hx.weight * hi;
    } else if (!detail::blend_masked<3>(grid_, hits, v, cov)) {
      return Interpolated{0.0, cov | Coverage::no_coverage};
    }
    return detail::finish(v, cov);
  }
  Interpolated operator()(double x, double y, double z) const noexcept { return query(x, y, z); }

  // Estimates the missing cells from their measured neighbours' efficiency under
  // `model_time(std::array<double, 3>)` (interp/fill_missing.hpp); returns how many.
  template <class ModelTime>
  std::size_t estimate_missing(const ModelTime& model_time) {
    return detail::fill_missing<3>(grid_, model_time);
  }

  bool empty() const noexcept { return grid_.empty(); }
  // axis 0 = x, 1 = y, 2 = z.
  const Axis& axis(std::size_t d) const noexcept { return grid_.axes[d]; }
  bool valid(std::size_t ix, std::size_t iy, std::size_t iz) const noexcept {
    return grid_.valid[ix * grid_.strides[0] + iy * grid_.strides[1] + iz] == cell_measured;
  }
  double value(std::size_t ix, std::size_t iy, std::size_t iz) const noexcept {
    return grid_.values[ix * grid_.strides[0] + iy * grid_.strides[1] + iz];
  }

 private:
  detail::Grid<3> grid_;
};

}  // namespace costdsl::interp
