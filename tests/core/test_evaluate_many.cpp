// evaluate_many: bit for bit evaluate() per iteration, and a leaf whose input repeats the
// previous iteration's is evaluated once for the run (within a block and across blocks).
#include <doctest/doctest.h>

#include <array>
#include <cstddef>
#include <string>
#include <vector>

#include "costdsl/costdsl.hpp"
#include "test_kernel.hpp"

using namespace costdsl;
using namespace costdsl::testing;

namespace {

// AffineKernel that counts its evaluations.
struct CountingKernel : AffineKernel {
  int* calls = nullptr;
  Metrics eval(const Input& in) const {
    ++*calls;
    return AffineKernel::eval(in);
  }
};

// A leaf input that is not trivially copyable: never compared, always evaluated.
struct NamedInput {
  std::string name;
  double tokens = 0;
};
struct NamedKernel {
  static constexpr std::string_view kind = "named";
  using Input = NamedInput;
  int* calls = nullptr;
  Metrics eval(const Input& in) const {
    ++*calls;
    return Metrics{1e-6 * in.tokens, 0, 0, 0, Coverage::none, 0};
  }
  std::vector<ConfigField> config_fields() const { return {}; }
  std::vector<std::string> backends() const { return {"synthetic"}; }
};

struct Counts {
  int prefill = 0, decode = 0, named = 0;
};

auto make_tree(Counts& c) {
  const CountingKernel prefill{{2e-6, 1e-9, 10, Coverage::none, 0}, &c.prefill};
  const CountingKernel decode{{1e-6, 3e-9, 20, Coverage::extrapolated, 1}, &c.decode};
  return sum(leaf<"prefill">(prefill), scale(Static<4>{}, max_over(leaf<"decode">(decode),
                                                                   leaf<"named">(NamedKernel{&c.named}))));
}

auto make_inputs(double prefill_tokens, double decode_tokens) {
  return inputs(input<"prefill">(TokensInput{prefill_tokens}), input<"decode">(TokensInput{decode_tokens}),
                input<"named">(NamedInput{"n", decode_tokens}));
}
using Iteration = decltype(make_inputs(0, 0));

// evaluate_many's results, each checked bitwise against evaluate() (which also counts).
template <class Tree>
std::vector<Metrics> many(const Tree& tree, const std::vector<Iteration>& in, Counts& c) {
  std::vector<Metrics> out(in.size());
  evaluate_many(tree, std::span(in), std::span(out));
  const Counts after_many = c;
  for (std::size_t i = 0; i < in.size(); ++i) {
    CAPTURE(i);
    CHECK(out[i] == evaluate(tree, in[i]));
  }
  c = after_many;
  return out;
}

}  // namespace

TEST_CASE("evaluate_many evaluates a leaf once per run of equal inputs, bit for bit") {
  Counts c;
  const auto tree = make_tree(c);
  // The block is 16 iterations here (3 slots): 40 spans two full blocks and a partial one.
  static_assert(n_slots<decltype(tree)> == 3);

  SUBCASE("a sweep over decodes at a fixed prefill: the prefill leaf once") {
    std::vector<Iteration> in;
    for (int i = 1; i <= 40; ++i) in.push_back(make_inputs(4096, 64.0 * i));
    many(tree, in, c);
    CHECK(c.prefill == 1);
    CHECK(c.decode == 40);
    CHECK(c.named == 40);  // not trivially copyable: never compared
  }
  SUBCASE("runs that cross block boundaries, and a run that ends and comes back") {
    std::vector<Iteration> in;
    for (int i = 0; i < 40; ++i) in.push_back(make_inputs(i < 15 ? 100 : (i < 33 ? 200 : 100), 7));
    many(tree, in, c);
    CHECK(c.prefill == 3);  // 100 ×15, 200 ×18 (over the first boundary), 100 ×7 (the partial block)
    CHECK(c.decode == 1);
  }
  SUBCASE("alternating inputs share nothing") {
    std::vector<Iteration> in;
    for (int i = 0; i < 20; ++i) in.push_back(make_inputs(i % 2 == 0 ? 1 : 2, i % 2 == 0 ? 3 : 4));
    many(tree, in, c);
    CHECK(c.prefill == 20);
    CHECK(c.decode == 20);
  }
  SUBCASE("equal values with different bytes are evaluated apart") {
    // -0.0 == 0.0 as doubles; their bytes differ, so each is evaluated (a kernel may tell them apart).
    const std::vector<Iteration> in{make_inputs(0.0, 1), make_inputs(-0.0, 1), make_inputs(-0.0, 1)};
    many(tree, in, c);
    CHECK(c.prefill == 2);
    CHECK(c.decode == 1);
  }
}
