#pragma once
// The numbers every node of a cost tree carries.
//
// double, not float: a simulator adds these up over millions of iterations and
// whole-model trees multiply leaves by layer counts (×126) and fold tens of
// thousands of FLOP-scale values (1e15+). float's 24-bit mantissa would lose
// whole leaves in such sums; the cost on a CPU is nil (the fold is a handful of
// adds per leaf, and four doubles still fill one AVX2 register).
#include <cstdint>

#include "costdsl/coverage.hpp"
#include "costdsl/detail/inline.hpp"

namespace costdsl {

inline constexpr std::uint8_t no_backend = 0xff;

struct Metrics {
  double time_s = 0;    // wall time on the GPU
  double flops = 0;     // floating-point operations (work: always sums)
  double bytes = 0;     // HBM / link bytes moved (work: always sums)
  double energy_j = 0;  // energy (work: always sums)
  Coverage coverage = Coverage::none;
  std::uint8_t backend = no_backend;  // leaf only: index of the winning backend

  constexpr double time_ms() const noexcept { return time_s * 1e3; }
  friend constexpr bool operator==(const Metrics&, const Metrics&) = default;
};

// The node algebra of design §2, one function per rule. The static fold and
// the flat twin both call exactly these, in the same order, so their results are
// bitwise identical.
namespace algebra {

// Sum: serial work on one stream.
COSTDSL_ALWAYS_INLINE constexpr void accumulate_sum(Metrics& acc, const Metrics& c) noexcept {
  acc.time_s += c.time_s;
  acc.flops += c.flops;
  acc.bytes += c.bytes;
  acc.energy_j += c.energy_j;
  acc.coverage |= c.coverage;
}

// Max and Parallel: time is the max, work still sums (it never overlaps away).
COSTDSL_ALWAYS_INLINE constexpr void accumulate_max(Metrics& acc, const Metrics& c) noexcept {
  acc.time_s = acc.time_s < c.time_s ? c.time_s : acc.time_s;
  acc.flops += c.flops;
  acc.bytes += c.bytes;
  acc.energy_j += c.energy_j;
  acc.coverage |= c.coverage;
}

// Parallel: concurrent streams on one device reach only `overlap` of perfect overlap.
COSTDSL_ALWAYS_INLINE constexpr void finish_parallel(Metrics& acc, double overlap) noexcept { acc.time_s /= overlap; }

// Scale: n identical copies; coverage unchanged.
COSTDSL_ALWAYS_INLINE constexpr Metrics scale(Metrics m, double n) noexcept {
  m.time_s *= n;
  m.flops *= n;
  m.bytes *= n;
  m.energy_j *= n;
  m.backend = no_backend;
  return m;
}

// A composite's starting value: empty, no backend.
constexpr Metrics empty() noexcept { return Metrics{}; }

}  // namespace algebra
}  // namespace costdsl
