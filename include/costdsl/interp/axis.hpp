#pragma once
// A sorted interpolation axis and its branchless segment search (design §8), plus
// the grid machinery the 1D/2D/3D interpolators share: building a grid from sample
// points at fit time, the fit-time checks, and the masked corner blend at query time.
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
  COSTDSL_INLINE std::size_t segment(double x) const noexcept {
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
  COSTDSL_INLINE AxisHit locate(double x) const noexcept {
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

// An axis as a fit call declares it: its name (used in messages) and scale.
struct AxisSpec {
  std::string name;
  AxisScale scale = AxisScale::linear;
};

namespace detail {

// Clamp at >= 0 and turn a non-finite result (only absurd queries overflow) into
// NO_COVERAGE, so NaN never leaves an interpolator.
COSTDSL_INLINE Interpolated finish(double v, Coverage cov) noexcept {
  if (!std::isfinite(v)) return Interpolated{0.0, cov | Coverage::no_coverage};
  return Interpolated{v < 0 ? 0.0 : v, cov};
}

inline bool finite_all(std::span<const double> xs) noexcept {
  for (double x : xs)
    if (!std::isfinite(x)) return false;
  return true;
}

// A D-dimensional grid: values in row-major order (the last axis varies fastest) and
// a validity mask (missing cells are allowed in 2D/3D).
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
  if (valid.empty()) valid.assign(values.size(), 1);
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
  }
  return g;
}

// Warnings about the fit go to the caller's sink; more than this many per table are
// summarized in one line so a badly noisy table cannot flood a log.
inline constexpr std::size_t max_warnings_per_check = 16;

inline void warn(std::vector<std::string>* sink, std::string msg) {
  if (sink != nullptr) sink->push_back(std::move(msg));
}

// Fit-time monotonicity check: a value that falls by more than 10% between grid
// neighbours along an axis is suspicious (more work should not take less time).
template <std::size_t D>
void check_monotonic(const Grid<D>& g, std::vector<std::string>* sink, std::string_view label) {
  if (sink == nullptr) return;
  std::size_t found = 0;
  for (std::size_t i = 0; i < g.values.size(); ++i) {
    if (!g.valid[i]) continue;
    const auto ix = g.unflatten(i);
    for (std::size_t d = 0; d < D; ++d) {
      if (ix[d] + 1 >= g.axes[d].size()) continue;
      const std::size_t j = i + g.strides[d];
      if (!g.valid[j] || !(g.values[j] < 0.9 * g.values[i])) continue;
      if (++found > max_warnings_per_check) continue;
      auto next = ix;
      ++next[d];
      warn(sink, std::string(label) + ": monotonicity break along " + g.axes[d].name() + ": value falls from " +
                     num(g.values[i]) + " at " + g.describe(ix) + " to " + num(g.values[j]) + " at " +
                     g.describe(next) + " (more than 10%)");
    }
  }
  if (found > max_warnings_per_check)
    warn(sink, std::string(label) + ": " + std::to_string(found - max_warnings_per_check) +
                   " more monotonicity breaks not listed");
}

// Builds a grid from (coords..., value) samples: drops non-finite or negative samples
// with a warning, makes each axis from the distinct surviving coordinates, and marks
// cells no sample reached as invalid. Two samples at the same point are a DataError.
// All samples dropped (or none given) gives an empty grid: every query is NO_COVERAGE.
template <std::size_t D>
Grid<D> fit_grid(std::span<const std::array<double, D + 1>> samples, const std::array<AxisSpec, D>& specs,
                 std::vector<std::string>* sink, std::string_view label) {
  auto describe_sample = [&](const std::array<double, D + 1>& s) {
    std::string out = "(";
    for (std::size_t d = 0; d < D; ++d) out += specs[d].name + "=" + num(s[d]) + ", ";
    return out + "value=" + num(s[D]) + ")";
  };
  std::vector<std::array<double, D + 1>> kept;
  kept.reserve(samples.size());
  std::size_t dropped = 0;
  for (const auto& s : samples) {
    const char* why = nullptr;
    if (!finite_all(std::span<const double>(s.data(), D)))
      why = "a coordinate is not finite";
    else if (!std::isfinite(s[D]))
      why = "the value is not finite";
    else if (s[D] < 0)
      why = "the value is negative";
    if (why == nullptr) {
      kept.push_back(s);
    } else if (++dropped <= max_warnings_per_check) {
      warn(sink, std::string(label) + ": dropped sample " + describe_sample(s) + ": " + why);
    }
  }
  if (dropped > max_warnings_per_check)
    warn(sink, std::string(label) + ": " + std::to_string(dropped - max_warnings_per_check) +
                   " more dropped samples not listed");
  Grid<D> g;
  if (kept.empty()) {
    warn(sink, std::string(label) + ": no usable samples; every query reports NO_COVERAGE");
    return g;
  }
  for (std::size_t d = 0; d < D; ++d) {
    std::vector<double> pts;
    pts.reserve(kept.size());
    for (const auto& s : kept) pts.push_back(s[d]);
    std::sort(pts.begin(), pts.end());
    pts.erase(std::unique(pts.begin(), pts.end()), pts.end());
    g.axes[d] = Axis(specs[d].name, std::move(pts), specs[d].scale);
  }
  g.set_strides();
  std::size_t cells = 1;
  for (const Axis& a : g.axes) cells *= a.size();
  g.values.assign(cells, 0.0);
  g.valid.assign(cells, 0);
  for (const auto& s : kept) {
    std::size_t flat = 0;
    for (std::size_t d = 0; d < D; ++d) {
      const auto pts = g.axes[d].points();
      flat += static_cast<std::size_t>(std::lower_bound(pts.begin(), pts.end(), s[d]) - pts.begin()) * g.strides[d];
    }
    if (g.valid[flat])
      throw DataError(std::string(label) + ": two samples at " + g.describe(g.unflatten(flat)) + " (values " +
                      num(g.values[flat]) + " and " + num(s[D]) + ")");
    g.values[flat] = s[D];
    g.valid[flat] = 1;
  }
  check_monotonic(g, sink, label);
  return g;
}

// Blends the 2^D corners of the cell the hits select when some corner is invalid (the
// interpolators inline the all-valid case themselves). Corner weights are products of
// the per-axis weights (outside [0, 1] when extrapolating). An invalid corner's weight
// goes to v̂, the average of the valid corners under the in-grid (clamped) weights:
// inside the grid this is exactly renormalizing over the surviving corners, and off
// the grid it cannot divide by a near-zero weight sum. An invalid corner with no
// weight at this query changes nothing and sets no flag. Returns false when no corner
// is valid.
template <std::size_t D>
bool blend_masked(const Grid<D>& g, const std::array<AxisHit, D>& hits, double& out, Coverage& cov) noexcept {
  double sum = 0, fill_num = 0, fill_den = 0, mean = 0, lost_w = 0;
  std::size_t count = 0;
  bool lost = false;
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
    if (g.valid[flat] != 0) {
      sum += w * v;
      fill_num += wc * v;
      fill_den += wc;
      mean += v;
      ++count;
    } else {
      lost_w += w;
      lost = lost || w != 0 || wc != 0;
    }
  }
  if (count == 0) return false;
  out = sum;
  if (!lost) return true;
  // A query exactly on an invalid grid point gives the valid corners zero weight: fall
  // back to their plain mean.
  const double fill = fill_den > 0 ? fill_num / fill_den : mean / static_cast<double>(count);
  out = sum + lost_w * fill;
  cov |= Coverage::renormalized;
  return true;
}

}  // namespace detail
}  // namespace costdsl::interp
