// Reevaluator: bit for bit evaluate() on every call, evaluating a leaf only when its value
// input changed since the last call; inputs that refer to memory, and fanned-out ranks,
// are evaluated every call.
#include <doctest/doctest.h>

#include <array>
#include <cstdint>
#include <random>
#include <span>
#include <vector>

#include "costdsl/costdsl.hpp"
#include "test_kernel.hpp"

using namespace costdsl;
using namespace costdsl::testing;

namespace {

// A reflected value input (as the kernels' Inputs are) and a kernel that counts calls.
struct ValueTokens {
  COSTDSL_FIELDS((std::uint64_t, tokens), (Dtype, dtype));
};
struct ValueKernel {
  static constexpr std::string_view kind = "value";
  using Input = ValueTokens;
  double per_token_s = 1e-9;
  int* calls = nullptr;
  Metrics eval(const Input& in) const {
    ++*calls;
    const double t = static_cast<double>(in.tokens);
    return Metrics{1e-6 + per_token_s * t, 2 * t, 3 * t, 1e-3 * t, in.tokens > 100 ? Coverage::extrapolated : Coverage::none,
                   static_cast<std::uint8_t>(in.dtype)};
  }
  std::vector<ConfigField> config_fields() const { return {{"per_token_s", per_token_s}}; }
  std::vector<std::string> backends() const { return {"a", "b", "c", "d", "e", "f", "g", "h"}; }
};

// A leaf whose input is a span: the same address may hold other lengths next call.
struct LengthsKernel {
  static constexpr std::string_view kind = "lengths";
  using Input = std::span<const std::uint32_t>;
  int* calls = nullptr;
  Metrics eval(const Input& in) const {
    ++*calls;
    double sum = 0;
    for (const std::uint32_t x : in) sum += x;
    return Metrics{1e-8 * sum, sum, sum, 0, Coverage::none, 0};
  }
  std::vector<ConfigField> config_fields() const { return {}; }
  std::vector<std::string> backends() const { return {"synthetic"}; }
};

static_assert(detail::value_input<ValueTokens>());
static_assert(detail::value_input<double>() && detail::value_input<Dtype>());
static_assert(!detail::value_input<std::span<const std::uint32_t>>());
static_assert(!detail::value_input<TokensInput>());  // not reflected: its fields cannot be checked

struct LeafCalls {
  int gemm = 0, norm = 0, lengths = 0, rank = 0;
};

auto make_value_tree(LeafCalls& c) {
  return sum(leaf<"gemm">(ValueKernel{2e-9, &c.gemm}),
             scale(Static<4>{}, max_over(leaf<"norm">(ValueKernel{1e-9, &c.norm}), leaf<"lengths">(LengthsKernel{&c.lengths}))));
}
auto make_value_inputs(std::uint64_t gemm, std::uint64_t norm, std::span<const std::uint32_t> lengths) {
  return inputs(input<"gemm">(ValueTokens{gemm, Dtype::bf16}), input<"norm">(ValueTokens{norm, Dtype::fp8}),
                input<"lengths">(lengths));
}

}  // namespace

TEST_CASE("Reevaluator: each call is evaluate(), and a leaf is evaluated again only when its value input changed") {
  LeafCalls c;
  const auto tree = make_value_tree(c);
  std::vector<std::uint32_t> lengths{3, 4, 5};
  using Ins = decltype(make_value_inputs(0, 0, lengths));
  Reevaluator<decltype(tree), Ins> again;
  const auto check = [&](std::uint64_t gemm, std::uint64_t norm) {
    const Ins in = make_value_inputs(gemm, norm, lengths);
    const LeafCalls before = c;
    const Metrics got = again(tree, in);
    const LeafCalls evaluated{c.gemm - before.gemm, c.norm - before.norm, c.lengths - before.lengths, 0};
    c = before;
    CHECK(got == evaluate(tree, in));
    c = LeafCalls{before.gemm + evaluated.gemm, before.norm + evaluated.norm, before.lengths + evaluated.lengths, 0};
    return evaluated;
  };
  LeafCalls e = check(100, 7);
  CHECK((e.gemm == 1 && e.norm == 1 && e.lengths == 1));  // the first call evaluates everything
  e = check(100, 7);
  CHECK((e.gemm == 0 && e.norm == 0 && e.lengths == 1));  // a span is never trusted
  lengths[1] = 400;                                       // same address, other data
  e = check(100, 8);
  CHECK((e.gemm == 0 && e.norm == 1 && e.lengths == 1));
  e = check(101, 8);
  CHECK((e.gemm == 1 && e.norm == 0));
  again.reset();
  e = check(101, 8);
  CHECK((e.gemm == 1 && e.norm == 1));  // reset() forgets
  const auto other = make_value_tree(c);      // the same type, another tree: afresh
  const Ins in = make_value_inputs(101, 8, lengths);
  const int gemm_before = c.gemm;
  CHECK(again(other, in) == evaluate(other, in));
  CHECK(c.gemm == gemm_before + 2);
}

TEST_CASE("Reevaluator: random sequences with repeats, and Fanouts, stay bit for bit evaluate()") {
  LeafCalls c;
  int rank_calls = 0;
  // A Fanout of value leaves beside a plain value leaf: each run of ranks keeps its own rows.
  const auto section = sum(leaf<"rank">(ValueKernel{1e-9, &rank_calls}), leaf<"rank_norm">(ValueKernel{3e-9, &c.norm}));
  using RankIn = rank_inputs_t<std::remove_const_t<decltype(section)>>;
  std::mt19937 rng(39);
  const auto rank_in = [&] {
    const std::uint64_t t = rng() % 4 == 0 ? rng() % 300 : 5;
    return inputs(input<"rank">(ValueTokens{t, Dtype::bf16}), input<"rank_norm">(ValueTokens{t % 7, Dtype::fp8}));
  };

  SUBCASE("every rank its own list") {
    const auto tree = sum(leaf<"gemm">(ValueKernel{2e-9, &c.gemm}), fanout(3, section));
    std::array<RankIn, 3> ranks{};
    const auto make = [&](std::uint64_t g) { return inputs(input<"gemm">(ValueTokens{g, Dtype::bf16}), fanout_input(ranks)); };
    Reevaluator<decltype(tree), decltype(make(0))> again;
    int gemm_calls = 0, gemm_changes = 0, rank_evaluations = 0;
    std::uint64_t g = 0;
    for (int i = 0; i < 500; ++i) {
      if (i == 0 || rng() % 3 == 0) {  // a third of the calls change the plain leaf's input
        g = rng() % 200;
        ++gemm_changes;
      }
      for (auto& r : ranks) r = rank_in();
      const auto in = make(g);
      const int before = c.gemm, rank_before = rank_calls;
      const Metrics got = again(tree, in);
      gemm_calls += c.gemm - before;
      rank_evaluations += rank_calls - rank_before;
      REQUIRE(got == evaluate(tree, in));
      REQUIRE(evaluate_balanced(tree, in).time_s <= got.time_s);
    }
    CHECK(gemm_calls <= gemm_changes);  // an unchanged value drawn again is not re-evaluated
    CHECK(gemm_calls >= 100);
    CHECK(rank_evaluations < 3 * 500 / 2);  // most ranks repeat their last input
    CHECK(rank_evaluations > 3 * 500 / 8);
  }
  SUBCASE("runs of identical ranks whose number and lengths change from call to call") {
    const auto tree = sum(leaf<"gemm">(ValueKernel{2e-9, &c.gemm}), fanout(12, section));
    std::vector<RankIn> runs;
    std::vector<std::uint32_t> counts;
    const auto make = [&] {
      return inputs(input<"gemm">(ValueTokens{7, Dtype::bf16}),
                    fanout_input(RankRuns<RankIn>{std::span<const RankIn>(runs), std::span<const std::uint32_t>(counts)}));
    };
    Reevaluator<decltype(tree), decltype(make())> again;
    for (int i = 0; i < 300; ++i) {
      runs.clear();
      counts.clear();
      for (std::uint32_t left = 12; left > 0;) {
        const std::uint32_t n = 1 + rng() % left;
        runs.push_back(rank_in());
        counts.push_back(n);
        left -= n;
      }
      const auto in = make();
      REQUIRE(again(tree, in) == evaluate(tree, in));
    }
  }
}
