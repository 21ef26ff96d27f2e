#pragma once
// Piecewise-linear interpolation over one sorted axis (design §8).
//
// Off the grid the edge segment extends linearly (flagged EXTRAPOLATED); a NaN or
// infinite query, or a table with no data, answers 0 flagged NO_COVERAGE; the output
// is clamped at >= 0.
//
// An aligned axis (AxisSpec::alignment A) holds two more curves: the points at multiples
// of A, and the points one past them. A GEMM's measured m come in such pairs (256 and
// 257): at the multiple every row tile is full and the library runs its aligned kernel,
// one row more adds a tile of one row and often another kernel (H100 fp8, n 51,200,
// k 6,144: 0.24 ms at m 512, 0.51 ms at 513), and each class varies smoothly along m.
// Interpolating across the classes puts an aligned m between an unaligned neighbour and
// an aligned one. A query of either class takes its class's curve where that curve
// brackets it; any other query, or one the curve does not bracket, the whole axis. A
// table whose own points say its classes do not differ keeps one curve (split_lanes).
#include <array>
#include <cmath>
#include <cstdint>
#include <memory>
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
    if (x.alignment > 0) out.split_lanes(x.alignment);
    return out;
  }

  COSTDSL_ALWAYS_INLINE Interpolated query(double x) const noexcept {
    if (values_.empty() || !std::isfinite(x)) return Interpolated{0.0, Coverage::no_coverage};
    if (lanes_ != nullptr) [[unlikely]]
      return lane_query(x);
    return whole_axis(x);
  }
  Interpolated operator()(double x) const noexcept { return query(x); }

  bool empty() const noexcept { return values_.empty(); }
  const Axis& axis() const noexcept { return axis_; }
  std::span<const double> values() const noexcept { return values_; }
  // The alignment whose classes the table interpolates apart (0: one curve).
  std::uint32_t alignment() const noexcept { return lanes_ == nullptr ? 0 : lanes_->alignment; }

 private:
  // One class of an aligned axis: its points and their values.
  struct Lane {
    Axis axis;
    std::vector<double> values;
  };
  struct Lanes {
    std::uint32_t alignment = 0;
    std::array<Lane, 2> lane;  // [0]: the multiples of alignment, [1]: the points one past them
  };

  // The lane of x: 0 at a multiple of the alignment, 1 one past a multiple (above the
  // first), 2 elsewhere (the whole axis).
  static std::size_t lane_of(double x, double alignment) noexcept {
    const double whole = std::floor(x / alignment);
    if (x == whole * alignment) return 0;
    return whole >= 1 && x - whole * alignment == 1 ? 1 : 2;
  }

  COSTDSL_ALWAYS_INLINE Interpolated whole_axis(double x) const noexcept {
    const AxisHit h = axis_.locate(x);
    const double v = (1 - h.weight) * values_[h.lo] + h.weight * values_[h.hi];
    return detail::finish(v, h.extrapolated ? Coverage::extrapolated : Coverage::none);
  }

  // Out of line: only aligned tables (GEMMs) pay for it.
  [[gnu::noinline]] Interpolated lane_query(double x) const noexcept {
    const std::size_t c = lane_of(x, lanes_->alignment);
    if (c > 1) return whole_axis(x);
    const Lane& own = lanes_->lane[c];
    if (own.values.size() < 2 || !own.axis.contains(x)) return whole_axis(x);
    const AxisHit h = own.axis.locate(x);
    return detail::finish((1 - h.weight) * own.values[h.lo] + h.weight * own.values[h.hi], Coverage::none);
  }

  // Splits the points by class, and keeps the split only where it predicts the table's
  // own points better: each interior point left out and interpolated from its neighbours
  // (the whole axis's, or its class's where that class brackets it), the class curves
  // must cut the summed |log error| by a fifth. A table whose classes lie on one curve
  // (A100 bf16, B200 fp4) keeps one curve and its finer spacing.
  void split_lanes(std::uint32_t alignment) {
    const std::size_t n = values_.size();
    std::array<std::vector<std::size_t>, 2> members;  // indices into the whole axis
    for (std::size_t i = 0; i < n; ++i)
      if (const std::size_t c = lane_of(axis_[i], alignment); c < 2) members[c].push_back(i);
    if (members[0].size() < 2 && members[1].size() < 2) return;
    const auto between = [&](std::size_t a, std::size_t b, std::size_t i) {
      const double x = axis_.scale() == AxisScale::log ? std::log(axis_[i]) : axis_[i];
      const double xa = axis_.scale() == AxisScale::log ? std::log(axis_[a]) : axis_[a];
      const double xb = axis_.scale() == AxisScale::log ? std::log(axis_[b]) : axis_[b];
      const double w = (x - xa) / (xb - xa);
      return (1 - w) * values_[a] + w * values_[b];
    };
    double one_curve = 0, class_curves = 0;
    std::size_t compared = 0;
    for (const auto& lane : members)
      for (std::size_t p = 0; p < lane.size(); ++p) {
        const std::size_t i = lane[p];
        if (i == 0 || i + 1 == n || !(values_[i] > 0)) continue;
        const double whole = between(i - 1, i + 1, i);
        const double own = p > 0 && p + 1 < lane.size() ? between(lane[p - 1], lane[p + 1], i) : whole;
        if (!(whole > 0) || !(own > 0)) continue;
        one_curve += std::abs(std::log(whole / values_[i]));
        class_curves += std::abs(std::log(own / values_[i]));
        ++compared;
      }
    // (A curve the one-curve scheme already follows to rounding keeps one curve.)
    if (!(class_curves < 0.8 * one_curve) || one_curve <= 1e-9 * double(compared)) return;
    auto lanes = std::make_shared<Lanes>();
    lanes->alignment = alignment;
    for (std::size_t c = 0; c < 2; ++c) {
      if (members[c].empty()) continue;
      std::vector<double> points;
      for (std::size_t i : members[c]) {
        points.push_back(axis_[i]);
        lanes->lane[c].values.push_back(values_[i]);
      }
      lanes->lane[c].axis = Axis(axis_.name(), std::move(points), axis_.scale());
    }
    lanes_ = std::move(lanes);
  }

  Axis axis_;
  std::vector<double> values_;
  std::shared_ptr<const Lanes> lanes_;  // null: one curve
};

}  // namespace costdsl::interp
