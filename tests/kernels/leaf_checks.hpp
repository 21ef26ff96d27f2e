#pragma once
// What every analytic L1 leaf shows, written once for the kernel tests: ANALYTIC, a positive
// time at or above its hardware bound, its own work, no backend; and the zero-work call
// costs nothing at all.
#include <doctest/doctest.h>

#include "costdsl/costdsl.hpp"
#include "costdsl/kernel.hpp"
#include "costdsl/timing.hpp"

namespace kernel_test {

inline const costdsl::Timing& roofline_h200() {
  static const costdsl::Timing t = costdsl::load_timing("h200", costdsl::TimingMode::roofline);
  return t;
}

template <class K>
costdsl::Metrics check_analytic(const typename K::Config& c, const typename K::Input& in) {
  using namespace costdsl;
  const Kernel<K> k(roofline_h200(), c);
  CHECK(k.source() == "roofline");
  const Metrics m = k.eval(in);
  CHECK(has(m.coverage, Coverage::analytic));
  CHECK(m.time_s > 0);
  CHECK(m.energy_j > 0);
  CHECK(m.flops == K::flops(c, in));
  CHECK(m.bytes == K::bytes(c, in));
  CHECK(m.backend == no_backend);
  CHECK(k.lower_bound_s(in) > 0);
  CHECK(k.lower_bound_s(in) < m.time_s);
  return m;
}

template <class K>
void check_zero(const typename K::Config& c, const typename K::Input& in) {
  using namespace costdsl;
  CHECK(K::flops(c, in) == 0);
  CHECK(K::bytes(c, in) == 0);
  CHECK(K::roofline(*roofline_h200().roofline(), c, in).time_s == 0);
  CHECK(Kernel<K>(roofline_h200(), c).eval(in) == Metrics{});
}

}  // namespace kernel_test
