#pragma once
// A sorted interpolation axis and its branchless segment search (design §8): what one
// query does per dimension. The grid a table holds is interp/grid.hpp; building one from
// measured samples, interp/grid_fit.hpp.
//
// Queries never allocate and never throw: they run in a simulator's inner loop.
#include <algorithm>
#include <array>
#include <bit>
#include <charconv>
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
#include "costdsl/interp/axis_scale.hpp"
#include "costdsl/error.hpp"

namespace costdsl::interp {

// What an interpolator returns. `value` is never NaN: a query with no data answers
// 0 with NO_COVERAGE set, so a caller that ignores the flag still sums finite numbers.
struct Interpolated {
  double value = 0;
  Coverage coverage = Coverage::none;
};


namespace detail {

// Shortest round-trip text of a double, for messages (no fmt in interp headers).
inline std::string num(double v) {
  std::array<char, 32> buf{};
  const auto r = std::to_chars(buf.data(), buf.data() + buf.size(), v);
  return std::string(buf.data(), r.ptr);
}

}  // namespace detail

// True when the ratios of consecutive points are near-constant (a geometric grid):
// every log-ratio lies within (1 + tolerance)x of the smallest one. Needs at least
// three strictly increasing positive points; two points say nothing about spacing.
inline bool looks_geometric(std::span<const double> points, double tolerance = 0.2) {
  if (points.size() < 3) return false;
  double lo = 0, hi = 0;
  for (std::size_t i = 0; i + 1 < points.size(); ++i) {
    const double a = points[i], b = points[i + 1];
    if (!(a > 0) || !(b > a) || !std::isfinite(b)) return false;
    const double r = std::log(b / a);
    if (i == 0 || r < lo) lo = r;
    if (i == 0 || r > hi) hi = r;
  }
  return hi <= lo * (1 + tolerance);
}

// Where a query falls on an axis: value = (1 - weight)·v[lo] + weight·v[hi].
// weight is in [0, 1] on the grid, < 0 below it and > 1 above it (linear extrapolation
// from the edge segment). A single-point axis gives lo == hi == 0, weight 0.
struct AxisHit {
  std::size_t lo = 0;
  std::size_t hi = 0;
  double weight = 0;
  bool extrapolated = false;
};

class Axis {
 public:
  // The empty axis: only an interpolator's "no data" state holds one.
  Axis() = default;

  // Throws DataError (naming the axis) on an empty, unsorted, duplicate or non-finite
  // grid, or a log scale over a grid that is not strictly positive.
  Axis(std::string name, std::vector<double> points, AxisScale scale = AxisScale::linear)
      : name_(std::move(name)), points_(std::move(points)) {
    if (points_.empty()) throw DataError("axis '" + name_ + "': no grid points");
    for (std::size_t i = 0; i < points_.size(); ++i) {
      if (!std::isfinite(points_[i]))
        throw DataError("axis '" + name_ + "': point " + std::to_string(i) + " is " + detail::num(points_[i]) +
                        "; grid points must be finite");
      if (i > 0 && !(points_[i] > points_[i - 1]))
        throw DataError("axis '" + name_ + "': point " + std::to_string(i) + " (" + detail::num(points_[i]) +
                        ") follows " + detail::num(points_[i - 1]) + "; grid points must be strictly increasing");
    }
    if (scale == AxisScale::detect) scale = looks_geometric(points_) ? AxisScale::log : AxisScale::linear;
    if (scale == AxisScale::log && !(points_.front() > 0))
      throw DataError("axis '" + name_ + "': log scale needs positive grid points, but the first is " +
                      detail::num(points_.front()));
    scale_ = scale;
    // Reciprocal segment widths: a multiply instead of a divide per query (the divide
    // was half the cost of a 1D query).
    for (std::size_t i = 0; i + 1 < points_.size(); ++i) inv_width_.push_back(1 / (points_[i + 1] - points_[i]));
    if (scale_ == AxisScale::log) {
      for (double p : points_) log_points_.push_back(std::log(p));
      for (std::size_t i = 0; i + 1 < points_.size(); ++i)
        inv_log_width_.push_back(1 / (log_points_[i + 1] - log_points_[i]));
    }
    build_guide();
  }

  const std::string& name() const noexcept { return name_; }
  AxisScale scale() const noexcept { return scale_; }  // linear or log, never detect
  bool guided() const noexcept { return !guide_.empty(); }  // segment() uses the guide table
  std::size_t size() const noexcept { return points_.size(); }
  bool empty() const noexcept { return points_.empty(); }
  std::span<const double> points() const noexcept { return points_; }
  double operator[](std::size_t i) const noexcept { return points_[i]; }
  double front() const noexcept { return points_.front(); }
  double back() const noexcept { return points_.back(); }
  bool contains(double x) const noexcept { return x >= points_.front() && x <= points_.back(); }
  double clamp(double x) const noexcept { return std::clamp(x, points_.front(), points_.back()); }

  // The segment [p[i], p[i+1]] for x: the last i <= size-2 with p[i] <= x, 0 below the
  // grid (and for a single-point axis). Inside the grid a guide table, indexed by the top
  // bits of x's IEEE pattern, gives a starting segment and at most guide_steps_
  // conditional-move steps finish: two dependent loads instead of the binary search's
  // log2(size) (seven on the 79-point GEMM axis, half the cost of a query). The bit
  // pattern of a positive double orders like its value and its top bits are the exponent
  // and leading mantissa bits, so the buckets are near log-spaced, like the token axes.
  COSTDSL_ALWAYS_INLINE std::size_t segment(double x) const noexcept {
    if (guide_.empty()) return search(x);
    const double* p = points_.data();
    const std::size_t last = points_.size() - 2;
    if (!(x >= p[1])) return 0;  // below p[1], or NaN (as search() answers)
    if (x >= p[last]) return last;
    std::size_t i = guide_[(std::bit_cast<std::uint64_t>(x) >> guide_shift_) - guide_base_];
    for (unsigned s = 0; s < guide_steps_; ++s) i = p[i + 1] <= x ? i + 1 : i;
    return i;
  }

  // The plain search: the loop count depends only on size() and the step is a select
  // (a conditional move), so there is no data-dependent branch to mispredict.
  std::size_t search(double x) const noexcept {
    const double* p = points_.data();
    std::size_t lo = 0;
    std::size_t len = points_.size() > 1 ? points_.size() - 1 : 1;  // candidate segments
    while (len > 1) {
      const std::size_t half = len / 2;
      lo = p[lo + half] <= x ? lo + half : lo;
      len -= half;
    }
    return lo;
  }

  // Segment and weight for x (x must not be NaN; interpolators check that first).
  // On a log axis the weight inside the grid comes from log(x); off the grid the edge
  // segment extends linearly in x: extending it in log space would flatten growth (on
  // a doubling grid a 16x overshoot would add 4 segments' worth of change, not 30) and
  // is undefined for x <= 0.
  // segment(), locate() and Interp1D::query() are forced inline: as calls they spilled the
  // caller's live values and cost a quarter of a Llama-3 iteration (396 -> ~300 ns). The 2D
  // query stays a call: inlined, the larger bodies ran slower.
  COSTDSL_ALWAYS_INLINE AxisHit locate(double x) const noexcept {
    if (points_.size() < 2) return AxisHit{0, 0, 0.0, x != points_.front()};
    const std::size_t i = segment(x);
    const bool off = x < points_.front() || x > points_.back();
    double w = (x - points_[i]) * inv_width_[i];
    if (scale_ == AxisScale::log && !off)
      w = std::clamp((std::log(x) - log_points_[i]) * inv_log_width_[i], 0.0, 1.0);
    // The reciprocal can leave w a rounding short of 1 at the segment's end: pin it, so
    // every grid point gets its exact value (and a zero-weight corner stays at zero).
    w = x == points_[i + 1] ? 1.0 : w;
    return AxisHit{i, i + 1, w, off};
  }

 private:
  // The guide for segment(): buckets of x in [p[1], p[size-2]) keyed by bits >> shift.
  // The coarsest key (smallest table) whose buckets each span at most two grid points
  // wins; grids with a non-positive interior point (the bit order breaks at zero) or
  // whose range needs more than max_guide buckets keep the plain search.
  void build_guide() {
    static constexpr std::size_t max_guide = 512;
    static constexpr unsigned max_steps = 2;
    const std::size_t n = points_.size();
    if (n < 4 || n > 0xffff || !(points_[1] > 0)) return;
    const auto key = [](double v) { return std::bit_cast<std::uint64_t>(v); };
    const std::size_t last = n - 2;
    for (unsigned shift = 63; shift-- > 40;) {
      const std::uint64_t base = key(points_[1]) >> shift, top = key(points_[last]) >> shift;
      if (top - base + 1 > max_guide) break;  // finer keys only grow the table
      std::vector<std::uint16_t> guide;
      unsigned steps = 0;
      for (std::uint64_t k = base; k <= top; ++k) {
        const double lo = std::max(points_[1], std::bit_cast<double>(k << shift));
        const double hi = std::bit_cast<double>(((k + 1) << shift) - 1);
        const std::size_t first = search(lo);
        guide.push_back(static_cast<std::uint16_t>(first));
        steps = std::max(steps, static_cast<unsigned>(search(hi) - first));
      }
      if (steps <= max_steps) {
        guide_ = std::move(guide);
        guide_shift_ = shift;
        guide_base_ = base;
        guide_steps_ = steps;
        return;
      }
    }
  }

  std::string name_;
  std::vector<double> points_;
  std::vector<double> inv_width_;      // 1 / (p[i+1] - p[i])
  std::vector<double> log_points_;     // log(p) on a log axis, else empty
  std::vector<double> inv_log_width_;  // 1 / (log p[i+1] - log p[i]) on a log axis
  AxisScale scale_ = AxisScale::linear;
  std::vector<std::uint16_t> guide_;  // empty: segment() uses search()
  unsigned guide_shift_ = 0, guide_steps_ = 0;
  std::uint64_t guide_base_ = 0;
};

// An axis as a fit call declares it: its name (used in messages), scale and alignment.
// alignment A > 0 (1D tables): the points at multiples of A and the points one past them
// lie on curves of their own, and a query of either class interpolates along its class's
// curve where that curve brackets it (interp1d.hpp). 0: one curve.
struct AxisSpec {
  std::string name;
  AxisScale scale = AxisScale::linear;
  std::uint32_t alignment = 0;
};

}  // namespace costdsl::interp
