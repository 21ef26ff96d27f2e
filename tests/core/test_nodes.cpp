#include <doctest/doctest.h>

#include <array>

#include "costdsl/costdsl.hpp"
#include "test_kernel.hpp"

using namespace costdsl;
using namespace costdsl::testing;

#include "alloc_counter.hpp"

namespace {
AffineKernel fixed(double time_s, double flops, Coverage c = Coverage::none) {
  return AffineKernel{time_s, 0, flops, c, 0};  // at 1 token: time = time_s, flops = flops
}
TokensInput one{1};
}  // namespace

TEST_CASE("Sum adds time and work and ORs coverage") {
  auto t = sum(leaf<"a">(fixed(2, 10, Coverage::analytic)), leaf<"b">(fixed(3, 20, Coverage::extrapolated)));
  Metrics m = evaluate(t, inputs(input<"a">(one), input<"b">(one)));
  CHECK(m.time_s == 5);
  CHECK(m.flops == 30);
  CHECK(m.bytes == 60);
  CHECK(has(m.coverage, Coverage::analytic));
  CHECK(has(m.coverage, Coverage::extrapolated));
  CHECK_FALSE(has(m.coverage, Coverage::no_coverage));
}

TEST_CASE("Max takes the slowest rank's time but sums every rank's work") {
  auto t = max_over(leaf<"r0">(fixed(2, 10)), leaf<"r1">(fixed(5, 20)), leaf<"r2">(fixed(1, 30)));
  Metrics m = evaluate(t, inputs(input<"r0">(one), input<"r1">(one), input<"r2">(one)));
  CHECK(m.time_s == 5);
  CHECK(m.flops == 60);
  CHECK(m.energy_j == doctest::Approx(3e-3));
}

TEST_CASE("Parallel is max / overlap; Max and Parallel differ only there") {
  auto a = leaf<"routed">(fixed(4, 10));
  auto b = leaf<"shared">(fixed(3, 5, Coverage::no_coverage));
  auto in = inputs(input<"routed">(one), input<"shared">(one));
  Metrics p = evaluate(parallel(Ratio<8, 10>{}, a, b), in);
  Metrics x = evaluate(max_over(a, b), in);
  CHECK(p.time_s == doctest::Approx(4 / 0.8));
  CHECK(x.time_s == 4);
  CHECK(p.flops == x.flops);
  CHECK(p.coverage == x.coverage);
  CHECK(has(p.coverage, Coverage::no_coverage));
  // Perfect overlap is the same as Max.
  CHECK(evaluate(parallel(Ratio<1, 1>{}, a, b), in) == x);
  // A run-time overlap must lie in (0, 1].
  CHECK(evaluate(parallel(0.8, a, b), in).time_s == p.time_s);
  CHECK_THROWS_WITH_AS(parallel(1.5, a, b), "Parallel overlap 1.500000 is outside (0, 1]", ConfigError);
  CHECK_THROWS_AS(parallel(0.0, a, b), ConfigError);
}

TEST_CASE("Scale multiplies everything but coverage; a static and a run-time count agree") {
  auto body = sum(leaf<"x">(fixed(2, 10, Coverage::extrapolated)), leaf<"y">(fixed(1, 1)));
  auto in = inputs(input<"x">(one), input<"y">(one));
  Metrics s = evaluate(scale(Static<32>{}, body), in);
  CHECK(s.time_s == 96);
  CHECK(s.flops == 352);
  CHECK(s.coverage == Coverage::extrapolated);  // coverage ORs through Scale unchanged
  CHECK(evaluate(scale(32u, body), in) == s);
  CHECK_THROWS_WITH_AS(scale(0u, body), "Scale count 0: a scaled subtree needs at least 1 copy", ConfigError);
}

TEST_CASE("Labeled is transparent") {
  auto l = leaf<"a">(fixed(2, 10, Coverage::analytic));
  CHECK(evaluate(labeled<"w">("w (Worklet) [tp=2]", l), inputs(input<"w.a">(one))) ==
        evaluate(l, inputs(input<"a">(one))));
}

TEST_CASE("the worked example Sum(a, Scale<3>(Sum(b, c)), d) = a + 3(b + c) + d") {
  auto t = sum(leaf<"a">(fixed(1, 1)), scale(Static<3>{}, sum(leaf<"b">(fixed(10, 10)), leaf<"c">(fixed(100, 100)))),
               leaf<"d">(fixed(1000, 1000)));
  static_assert(n_slots<decltype(t)> == 4);
  std::array<Metrics, 4> row{};
  Metrics m = evaluate(t, inputs(input<"a">(one), input<"b">(one), input<"c">(one), input<"d">(one)), row);
  CHECK(m.time_s == 1 + 3 * (10 + 100) + 1000);
  CHECK(m.flops == 1 + 3 * (10 + 100) + 1000);
  CHECK(row[0].time_s == 1);  // the row holds each slot once, unscaled
  CHECK(row[2].time_s == 100);
  CHECK(row[3].time_s == 1000);
}

TEST_CASE("a leaf with no work pushes all zeros and no flags") {
  auto t = sum(leaf<"prefill">(AffineKernel{5e-6, 1e-9, 10, Coverage::analytic, 0}), leaf<"decode">(fixed(1, 1)));
  Metrics m = evaluate(t, inputs(input<"prefill">(TokensInput{0}), input<"decode">(one)));
  CHECK(m.time_s == 1);
  CHECK(m.coverage == Coverage::none);
}

TEST_CASE("a run-time conditional slot keeps its place and pushes zero while off") {
  auto make = [](bool tp_gt_1) {
    return sum(leaf<"o_proj">(fixed(1, 1)), when(tp_gt_1, leaf<"tp_allreduce">(fixed(7, 0, Coverage::analytic))));
  };
  auto in = inputs(input<"o_proj">(one), when(true, input<"tp_allreduce">(one)));
  CHECK(evaluate(make(true), in).time_s == 8);
  Metrics off = evaluate(make(false), in);
  CHECK(off.time_s == 1);
  CHECK(off.coverage == Coverage::none);
  // Statically absent: the input list drops the input with the same when().
  auto absent = sum(leaf<"o_proj">(fixed(1, 1)), when(std::false_type{}, leaf<"tp_allreduce">(fixed(7, 0))));
  CHECK(evaluate(absent, inputs(input<"o_proj">(one), when(std::false_type{}, input<"tp_allreduce">(one)))).time_s ==
        1);
}

TEST_CASE("evaluating a static tree does not allocate") {
  auto t = labeled<"model">(
      "model", sum(leaf<"embed">(fixed(1, 1)),
                   labeled<"layer">("layer", scale(Static<80>{}, sum(leaf<"attn">(fixed(2, 2)),
                                                                      parallel(Ratio<9, 10>{}, leaf<"moe">(fixed(3, 3)),
                                                                               leaf<"shared">(fixed(1, 1))))))));
  auto in = inputs(input<"model.embed">(one),
                   nest<"model">(nest<"layer">(
                       inputs(input<"attn">(one), input<"moe">(TokensInput{2}), input<"shared">(TokensInput{3})))));
  std::array<Metrics, 4> row{};
  const long before = costdsl::testing::allocation_count();
  Metrics total{};
  for (int i = 0; i < 1000; ++i) {
    total = evaluate(t, in);
    total = evaluate(t, in, row);
  }
  const long after = costdsl::testing::allocation_count();
  CHECK(after == before);
  CHECK(total.time_s == doctest::Approx(1 + 80 * (2 + 3 / 0.9)));
}
