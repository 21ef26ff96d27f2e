#pragma once
// A seeded synthetic workload: Poisson arrivals, lognormal or uniform lengths.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "costdsl/error.hpp"
#include "costdsl/serve/detail/text.hpp"
#include "costdsl/serve/request.hpp"

namespace costdsl::serve {

enum class LengthDist { lognormal, uniform };

struct SyntheticWorkload {
  std::size_t requests = 1000;
  double rate = 150;  // mean arrivals per second (Poisson process)
  std::uint64_t seed = 1;
  LengthDist dist = LengthDist::lognormal;
  double input_median = 256, output_median = 128;
  double sigma = 0.8;            // lognormal shape; uniform spans [1, 2*median - 1] (mean == median)
  std::uint32_t max_len = 8192;  // clamp per field, so a heavy tail cannot exceed the context length

  // Seeded: the same fields give the same requests on the same standard library.
  std::vector<Request> generate() const {
    if (!(rate > 0) || !std::isfinite(rate))
      throw InputError("--rate must be a positive finite number, got " + detail::shortest(rate));
    std::mt19937_64 rng(seed);
    std::exponential_distribution<double> gap(rate);
    auto draw = [&](double median) -> std::uint32_t {
      double x = 0;
      if (dist == LengthDist::lognormal) {
        x = std::lognormal_distribution<double>(std::log(median), sigma)(rng);
      } else {
        x = std::uniform_real_distribution<double>(1.0, 2.0 * median)(rng);
      }
      return static_cast<std::uint32_t>(std::clamp(std::llround(x), 1LL, static_cast<long long>(max_len)));
    };
    std::vector<Request> out;
    out.reserve(requests);
    double t = 0;
    for (std::size_t i = 0; i < requests; ++i) {
      t += gap(rng);
      const std::uint32_t in = draw(input_median);
      out.push_back({t, in, draw(output_median)});
    }
    return out;
  }
};

}  // namespace costdsl::serve
