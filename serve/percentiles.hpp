#pragma once
// Nearest-rank percentiles of a sample.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <vector>

#include "costdsl/serve/quantile.hpp"

namespace costdsl::serve {

struct Percentiles {
  double p50 = 0, p90 = 0, p99 = 0, mean = 0;  // all 0 for an empty sample

  // Sorts `v` in place (called once per metric, after a run). Nearest rank: the
  // smallest value with at least q of the sample at or below it.
  static Percentiles of(std::vector<double>& v) {
    Percentiles p;
    if (v.empty()) return p;
    std::sort(v.begin(), v.end());
    auto rank = [&](double q) {
      const auto k = static_cast<std::size_t>(std::ceil(q * static_cast<double>(v.size())));
      return v[std::max<std::size_t>(k, 1) - 1];
    };
    double sum = 0;
    for (double x : v) sum += x;
    return {rank(fraction(Quantile::p50)), rank(fraction(Quantile::p90)), rank(fraction(Quantile::p99)),
            sum / static_cast<double>(v.size())};
  }

  double at(Quantile q) const noexcept { return q == Quantile::p50 ? p50 : q == Quantile::p90 ? p90 : p99; }
};

}  // namespace costdsl::serve
