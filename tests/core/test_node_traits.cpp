// A node kind is one header: a user-defined node (here Twice, two copies of a
// subtree) needs only its node_traits specialisation, and every walker — slot list,
// evaluate and its row, the balanced view, bounds, visit, lowering and the manifest,
// evaluate_many — handles it with no other edit.
#include <doctest/doctest.h>

#include <array>
#include <string>
#include <vector>

#include "costdsl/costdsl.hpp"
#include "test_kernel.hpp"

using namespace costdsl;
using namespace costdsl::testing;

namespace {

template <CostNode C>
struct Twice {
  static constexpr NodeKind node_kind = NodeKind::scale;  // what it lowers to
  C child;
};

}  // namespace

template <class C>
struct costdsl::node_traits<Twice<C>> : detail::one_child<C> {
  template <RankFold>
  static constexpr algebra::ScaleFold fold(const Twice<C>&) noexcept {
    return {2.0};
  }
  static constexpr LoweredNode lowered(const Twice<C>&) noexcept { return {NodeKind::scale, 2.0, {}}; }
};

namespace {

struct BoundedKernel : AffineKernel {
  double lower_bound_s(const Input& in) const { return 0.5 * per_token_s * in.tokens; }
};

auto make_tree() {
  const AffineKernel a{1e-6, 1e-9, 10, Coverage::none, 0};
  const BoundedKernel b{{2e-6, 3e-9, 20, Coverage::extrapolated, 1}};
  return sum(leaf<"a">(a), Twice<Labeled<"blk", Max<Leaf<"b", BoundedKernel>, Leaf<"c", AffineKernel>>>>{
                               labeled<"blk">("block", max_over(leaf<"b">(b), leaf<"c">(a)))});
}

auto make_inputs(double tokens) {
  return inputs(input<"a">(TokensInput{tokens}), input<"blk.b">(TokensInput{2 * tokens}),
                input<"blk.c">(TokensInput{tokens}));
}

}  // namespace

TEST_CASE("a node kind defined by its node_traits alone works through every walker") {
  const auto tree = make_tree();
  using Tree = decltype(tree);
  static_assert(n_slots<Tree> == 3);
  static_assert(slot_paths<Tree>[1] == "blk.b" && slot_paths<Tree>[2] == "blk.c");

  const auto in = make_inputs(100);
  const Metrics a = AffineKernel{1e-6, 1e-9, 10, Coverage::none, 0}.eval(TokensInput{100});
  const Metrics b = BoundedKernel{{2e-6, 3e-9, 20, Coverage::extrapolated, 1}}.eval(TokensInput{200});
  const Metrics c = AffineKernel{1e-6, 1e-9, 10, Coverage::none, 0}.eval(TokensInput{100});

  // evaluate: the Sum adds a and twice the Max of b and c (time is b's, work is both).
  const Metrics total = evaluate(tree, in);
  CHECK(total.time_s == doctest::Approx(a.time_s + 2 * b.time_s));
  CHECK(total.flops == doctest::Approx(a.flops + 2 * (b.flops + c.flops)));
  CHECK(total.coverage == Coverage::extrapolated);

  // The row, the manifest's re-aggregation and the runtime twin agree with it.
  std::array<Metrics, 3> row{};
  CHECK(evaluate(tree, in, row) == total);
  CHECK(row[1] == b);
  const Manifest manifest = make_manifest(tree);
  CHECK(manifest.tree.aggregate(row).time_s == doctest::Approx(total.time_s).epsilon(1e-15));
  CHECK(manifest.tree.aggregate(row).flops == doctest::Approx(total.flops).epsilon(1e-15));
  CHECK(lower(tree).aggregate(row).time_s == doctest::Approx(total.time_s).epsilon(1e-15));
  CHECK(manifest.slots.at(2).name == "blk.c");

  // The balanced view rebalances the Max inside it and keeps the factor 2.
  const Metrics balanced = evaluate_balanced(tree, in);
  CHECK(balanced.time_s == doctest::Approx(a.time_s + (b.time_s + c.time_s)));
  CHECK(manifest.tree.aggregate(row, FlatTree::MaxFold::mean).time_s == doctest::Approx(balanced.time_s));

  // Bounds and visit reach the leaves below it, with their paths.
  std::array<double, 3> bounds{};
  evaluate_bounds(tree, in, std::span<double, 3>(bounds));
  CHECK(bounds[1] == doctest::Approx(0.5 * 3e-9 * 200));
  CHECK(bounds[0] == 0);
  std::vector<std::string> paths;
  for_each_leaf(tree, [&](std::string_view path, const auto&) { paths.emplace_back(path); });
  CHECK(paths == std::vector<std::string>{"a", "blk.b", "blk.c"});

  // evaluate_many: the same numbers per iteration.
  const std::array batch{make_inputs(100), make_inputs(7)};
  std::array<Metrics, 2> out{};
  evaluate_many(tree, batch, std::span<Metrics>(out));
  CHECK(out[0] == total);
  CHECK(out[1] == evaluate(tree, make_inputs(7)));
}
