#pragma once
// Building a grid from measured samples (fit time, never per query): bad samples dropped
// with a warning, each axis from the distinct coordinates, unreached cells marked
// missing, and a monotonicity check whose warnings go to the caller's sink.
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

#include "costdsl/error.hpp"
#include "costdsl/interp/axis.hpp"
#include "costdsl/interp/grid.hpp"

namespace costdsl::interp {
namespace detail {

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
  for (std::size_t d = 0; D > 1 && d < D; ++d)
    if (specs[d].alignment != 0)
      throw InputError(std::string(label) + ": axis '" + specs[d].name + "' declares alignment " +
                       std::to_string(specs[d].alignment) + "; aligned axes are for one-axis tables only");
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
    g.valid[flat] = cell_measured;
  }
  check_monotonic(g, sink, label);
  return g;
}

}  // namespace detail
}  // namespace costdsl::interp
