#pragma once
// Piecewise-linear interpolation over one sorted axis (design §8).
//
// Off the grid the edge segment extends linearly (flagged EXTRAPOLATED); a NaN or
// infinite query, or a table with no data, answers 0 flagged NO_COVERAGE; the output
// is clamped at >= 0.
#include <array>
#include <cmath>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "costdsl/coverage.hpp"
#include "costdsl/detail/inline.hpp"
#include "costdsl/error.hpp"
#include "costdsl/interp/axis.hpp"
#include "costdsl/interp/grid.hpp"
#include "costdsl/interp/grid_fit.hpp"

namespace costdsl::interp {

class Interp1D {
 public:
  struct Sample {
    double x = 0;
    double value = 0;
  };

  // The empty table: every query is NO_COVERAGE.
  Interp1D() = default;

  // One value per grid point, each finite and >= 0 (else DataError).
  Interp1D(Axis x, std::vector<double> values, std::string_view label = "interp1d") {
    auto g = detail::make_grid<1>({std::move(x)}, std::move(values), {}, label);
    axis_ = std::move(g.axes[0]);
    values_ = std::move(g.values);
  }

  // Builds the table from measured points: non-finite or negative samples are dropped
  // and monotonicity breaks reported through `warnings` (nullptr: ignore); two samples
  // at the same x are a DataError. No usable sample gives the empty table.
  static Interp1D fit(std::span<const Sample> samples, const AxisSpec& x = {"x"},
                      std::vector<std::string>* warnings = nullptr, std::string_view label = "interp1d") {
    std::vector<std::array<double, 2>> raw;
    raw.reserve(samples.size());
    for (const Sample& s : samples) raw.push_back({s.x, s.value});
    auto g = detail::fit_grid<1>(std::span<const std::array<double, 2>>(raw), {x}, warnings, label);
    Interp1D out;
    if (g.empty()) return out;
    out.axis_ = std::move(g.axes[0]);
    out.values_ = std::move(g.values);
    return out;
  }

  COSTDSL_ALWAYS_INLINE Interpolated query(double x) const noexcept {
    if (values_.empty() || !std::isfinite(x)) return Interpolated{0.0, Coverage::no_coverage};
    const AxisHit h = axis_.locate(x);
    const double v = (1 - h.weight) * values_[h.lo] + h.weight * values_[h.hi];
    return detail::finish(v, h.extrapolated ? Coverage::extrapolated : Coverage::none);
  }
  Interpolated operator()(double x) const noexcept { return query(x); }

  bool empty() const noexcept { return values_.empty(); }
  const Axis& axis() const noexcept { return axis_; }
  std::span<const double> values() const noexcept { return values_; }

 private:
  Axis axis_;
  std::vector<double> values_;
};

}  // namespace costdsl::interp
