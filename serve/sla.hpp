#pragma once
// Latency targets on a percentile of TTFT, TPOT and request latency.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "costdsl/serve/percentiles.hpp"
#include "costdsl/serve/quantile.hpp"

namespace costdsl::serve {

struct Sla {
  static constexpr double none = std::numeric_limits<double>::infinity();
  double ttft_s = none, tpot_s = none, e2e_s = none;
  Quantile quantile = Quantile::p90;  // which percentile must meet the limits

  bool any() const noexcept { return ttft_s < none || tpot_s < none || e2e_s < none; }

  bool met_by(const Percentiles& ttft, const Percentiles& tpot, const Percentiles& e2e) const noexcept {
    return ttft.at(quantile) <= ttft_s && tpot.at(quantile) <= tpot_s && e2e.at(quantile) <= e2e_s;
  }

  // How far a result is from the targets: the largest value / limit (<= 1: met).
  double ratio(const Percentiles& ttft, const Percentiles& tpot, const Percentiles& e2e) const noexcept {
    double r = 0;
    if (ttft_s < none) r = std::max(r, ttft.at(quantile) / ttft_s);
    if (tpot_s < none) r = std::max(r, tpot.at(quantile) / tpot_s);
    if (e2e_s < none) r = std::max(r, e2e.at(quantile) / e2e_s);
    return r;
  }

  // With n samples, the nearest-rank percentile exceeds a limit once this many exceed it
  // (whatever the others turn out to be): the rule that lets a simulation stop early.
  std::uint64_t certain_miss_count(std::uint64_t n) const noexcept {
    const auto k = static_cast<std::uint64_t>(std::ceil(fraction(quantile) * static_cast<double>(n)));
    return n - std::max<std::uint64_t>(k, 1) + 1;
  }
};

}  // namespace costdsl::serve
