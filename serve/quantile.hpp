#pragma once
// The percentiles a report gives, and an SLA may be held at.
#include <cstdint>

namespace costdsl::serve {

enum class Quantile : std::uint8_t { p50, p90, p99 };

constexpr double fraction(Quantile q) noexcept { return q == Quantile::p50 ? 0.50 : q == Quantile::p90 ? 0.90 : 0.99; }
constexpr int percent(Quantile q) noexcept { return q == Quantile::p50 ? 50 : q == Quantile::p90 ? 90 : 99; }

}  // namespace costdsl::serve
