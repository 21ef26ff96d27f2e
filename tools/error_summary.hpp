#pragma once
// How far a model is from measurements, as `costdsl validate`, `costdsl roofline eval` and
// scripts/calibrate_roofline.py report it: the median and p90 |relative error| and the
// bias (median signed relative error), relative error = (model − measured) / measured.
// The median of an even count is the mean of the middle two; p90 is the value at
// index ⌊0.9·n⌋ of the sorted |errors| (Python's statistics.median and the script's p90).
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <vector>

namespace costdsl::cli {

struct ErrorSummary {
  std::size_t rows = 0;
  double median_abs = 0, p90_abs = 0, bias = 0;
};

inline double median_of(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

inline ErrorSummary summarize_errors(const std::vector<double>& rel) {
  ErrorSummary s;
  s.rows = rel.size();
  if (rel.empty()) return s;
  std::vector<double> abs_err(rel.size());
  std::transform(rel.begin(), rel.end(), abs_err.begin(), [](double e) { return std::abs(e); });
  s.bias = median_of(rel);
  std::sort(abs_err.begin(), abs_err.end());
  s.median_abs = median_of(abs_err);
  s.p90_abs = abs_err[std::min(abs_err.size() - 1, static_cast<std::size_t>(0.9 * double(abs_err.size())))];
  return s;
}

}  // namespace costdsl::cli
