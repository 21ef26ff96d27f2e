// Fanout: a Max over a run-time number of ranks whose slots appear once.
#include <doctest/doctest.h>

#include <vector>

#include "costdsl/costdsl.hpp"
#include "test_kernel.hpp"

using namespace costdsl;
using namespace costdsl::testing;

namespace {
// One rank's section: an attention-like leaf and a norm-like leaf inside a Scale.
auto section(double base) {
  return labeled<"dp">("dp group", sum(leaf<"attn">(AffineKernel{base, 2e-7, 1e6, Coverage::none, 0}),
                                       scale(Static<3>{}, leaf<"norm">(AffineKernel{1e-6, 1e-8, 1e3,
                                                                                    Coverage::analytic, 1}))));
}
auto rank_in(double attn_tokens, double norm_tokens) {
  return nest<"dp">(inputs(input<"attn">(TokensInput{attn_tokens}), input<"norm">(TokensInput{norm_tokens})));
}
using Section = decltype(section(0));
using RankIn = rank_inputs_t<Section>;
}  // namespace

static_assert(std::is_same_v<RankIn, decltype(rank_in(0, 0))>);

TEST_CASE("fanout: Max semantics over run-time ranks, one copy of the slots") {
  const auto tree = sum(leaf<"embed">(AffineKernel{1e-6, 0, 0, Coverage::none, 0}), fanout(3, section(5e-6)));
  using Tree = decltype(tree);
  static_assert(n_slots<Tree> == 3);  // embed, dp.attn, dp.norm: independent of the 3 ranks
  static_assert(n_inputs<Tree> == 2);  // embed, and one entry for the fanout
  static_assert(slot_paths<Tree>[1] == "dp.attn");

  const std::vector<RankIn> ranks{rank_in(100, 10), rank_in(4000, 5), rank_in(0, 0)};
  const auto in = inputs(input<"embed">(TokensInput{7}), fanout_input(ranks));
  std::array<Metrics, 3> row{};
  const Metrics total = evaluate(tree, in, row);
  CHECK(total == evaluate(tree, in));

  // The same thing written out as a static Max over three labeled copies.
  const auto explicit_tree =
      sum(leaf<"embed">(AffineKernel{1e-6, 0, 0, Coverage::none, 0}),
          max_over(labeled<"r0">("", section(5e-6)), labeled<"r1">("", section(5e-6)), labeled<"r2">("", section(5e-6))));
  const Metrics expected = evaluate(
      explicit_tree, inputs(input<"embed">(TokensInput{7}), nest<"r0">(ranks[0]), nest<"r1">(ranks[1]), nest<"r2">(ranks[2])));
  CHECK(total.time_s == expected.time_s);  // the slowest rank, exactly
  CHECK(total.flops == doctest::Approx(expected.flops).epsilon(1e-14));  // all ranks' work
  CHECK(total.bytes == doctest::Approx(expected.bytes).epsilon(1e-14));
  CHECK(total.energy_j == doctest::Approx(expected.energy_j).epsilon(1e-14));
  CHECK(total.coverage == expected.coverage);

  // The row: the slowest rank's (rank 1) times and backends, every rank's work.
  const AffineKernel attn{5e-6, 2e-7, 1e6, Coverage::none, 0};
  CHECK(row[1].time_s == attn.eval({4000}).time_s);
  CHECK(row[1].flops == attn.eval({100}).flops + attn.eval({4000}).flops);
  CHECK(row[2].backend == 1);

  // The manifest: a Max over 3 ranks with one child; re-aggregating the row gives the total bitwise.
  const Manifest m = make_manifest(tree);
  const nlohmann::json j = to_json(m);
  CHECK(j["nodes"][2]["kind"] == "max");
  CHECK(j["nodes"][2]["ranks"] == 3);
  CHECK(m.tree.aggregate(row) == total);
  CHECK(flat_tree_from_manifest(nlohmann::json::parse(j.dump())).aggregate(row) == total);
  CHECK(describe(m).find("max over 3 ranks (run-time fanout") != std::string::npos);
  std::vector<std::string> leaves;
  for_each_leaf(tree, [&](std::string_view path, const auto&) { leaves.emplace_back(path); });
  CHECK(leaves == std::vector<std::string>{"embed", "dp.attn", "dp.norm"});
}

TEST_CASE("fanout: a node kind of its own, which the runtime twin holds as a max with ranks") {
  using F = decltype(fanout(3, section(5e-6)));
  static_assert(F::node_kind == NodeKind::fanout && RankFanout<F>);
  static_assert(!RankFanout<decltype(max_over(section(5e-6)))>);
  const FlatTree lowered = make_manifest(fanout(3, section(5e-6))).tree;
  CHECK(lowered.nodes()[0].kind == NodeKind::max);
  CHECK(lowered.nodes()[0].ranks() == 3);
  CHECK_THROWS_WITH_AS(FlatTree::from_runtime(RuntimeNode{NodeKind::fanout, 3, {}, {RuntimeNode::leaf("a")}}),
                       "flat tree node 0: a fanout is held as what it lowers to, a max with ranks", DataError);
}

TEST_CASE("fanout: the degree is data, checked against the inputs") {
  CHECK_THROWS_WITH_AS(fanout(0, section(1e-6)), "fanout over 0 ranks: a fanned-out section needs at least 1 rank",
                       ConfigError);
  const auto tree = fanout(2, section(1e-6));
  const std::vector<RankIn> three{rank_in(1, 1), rank_in(2, 2), rank_in(3, 3)};
  CHECK_THROWS_WITH_AS(evaluate(tree, inputs(fanout_input(three))), "fanout over 2 ranks got input lists for 3",
                       InputError);
  // One rank is the section itself.
  const auto one = fanout(1, section(1e-6));
  const std::vector<RankIn> single{rank_in(50, 60)};
  CHECK(evaluate(one, inputs(fanout_input(single))) == evaluate(section(1e-6), rank_in(50, 60)));
  // A span works as well as a vector.
  CHECK(evaluate(tree, inputs(fanout_input(std::span<const RankIn>(three.data(), 2)))).time_s > 0);
}

TEST_CASE("fanout: bounds come from one rank, the one with the largest bound") {
  struct BoundKernel : AffineKernel {
    double lower_bound_s(const TokensInput& in) const { return 1e-9 * in.tokens; }
  };
  const auto tree = fanout(2, leaf<"k">(BoundKernel{}));
  using R = rank_inputs_t<decltype(leaf<"k">(BoundKernel{}))>;
  const std::vector<R> ranks{R{{{TokensInput{10}}}}, R{{{TokensInput{30}}}}};
  std::array<double, 1> bounds{};
  evaluate_bounds(tree, inputs(fanout_input(ranks)), std::span<double, 1>(bounds));
  CHECK(bounds[0] == doctest::Approx(30e-9));
}

TEST_CASE("fanout: the balanced view folds the ranks with their mean time") {
  const auto tree = sum(leaf<"embed">(AffineKernel{1e-6, 0, 0, Coverage::none, 0}), fanout(3, section(5e-6)));
  const std::vector<RankIn> ranks{rank_in(100, 10), rank_in(4000, 5), rank_in(0, 0)};
  const auto in = inputs(input<"embed">(TokensInput{7}), fanout_input(ranks));
  const Metrics balanced = evaluate_balanced(tree, in);
  const Metrics total = evaluate(tree, in);

  // The explicit static Max over three copies, folded with the mean by the manifest.
  const auto explicit_tree =
      sum(leaf<"embed">(AffineKernel{1e-6, 0, 0, Coverage::none, 0}),
          max_over(labeled<"r0">("", section(5e-6)), labeled<"r1">("", section(5e-6)), labeled<"r2">("", section(5e-6))));
  const auto explicit_in =
      inputs(input<"embed">(TokensInput{7}), nest<"r0">(ranks[0]), nest<"r1">(ranks[1]), nest<"r2">(ranks[2]));
  std::array<Metrics, n_slots<decltype(explicit_tree)>> row{};
  evaluate(explicit_tree, explicit_in, row);
  const Metrics by_manifest = make_manifest(explicit_tree).tree.aggregate(row, FlatTree::MaxFold::mean);
  CHECK(balanced.time_s == doctest::Approx(by_manifest.time_s).epsilon(1e-14));
  CHECK(evaluate_balanced(explicit_tree, explicit_in).time_s == doctest::Approx(by_manifest.time_s).epsilon(1e-14));
  CHECK(balanced.time_s < total.time_s);  // rank 1 carries 40x the tokens: real imbalance
  CHECK(balanced.flops == doctest::Approx(total.flops).epsilon(1e-14));  // work is not rebalanced

  // Identical ranks: nothing to rebalance.
  const std::vector<RankIn> same{rank_in(500, 50), rank_in(500, 50), rank_in(500, 50)};
  const auto in_same = inputs(input<"embed">(TokensInput{7}), fanout_input(same));
  CHECK(evaluate_balanced(tree, in_same).time_s == doctest::Approx(evaluate(tree, in_same).time_s).epsilon(1e-14));
}

TEST_CASE("fanout: runs of identical ranks (RankRuns) give bit for bit what the expanded list gives") {
  const auto tree = sum(leaf<"embed">(AffineKernel{1e-6, 0, 0, Coverage::none, 0}), fanout(6, section(5e-6)));
  using Tree = decltype(tree);
  // Ranks A A B A C C: runs of 2, 1, 1, 2 (A's second run is not merged with its first).
  const RankIn a = rank_in(100, 10), b = rank_in(4000, 5), c = rank_in(0, 0);
  const std::vector<RankIn> expanded{a, a, b, a, c, c};
  const std::vector<RankIn> runs{a, b, a, c};
  const std::vector<std::uint32_t> count{2, 1, 1, 2};
  const auto in_expanded = inputs(input<"embed">(TokensInput{7}), fanout_input(expanded));
  const auto in_runs = inputs(input<"embed">(TokensInput{7}), fanout_input(RankRuns<RankIn>{runs, count}));
  std::array<Metrics, n_slots<Tree>> row_expanded{}, row_runs{};
  CHECK(evaluate(tree, in_runs, row_runs) == evaluate(tree, in_expanded, row_expanded));
  CHECK(row_runs == row_expanded);
  CHECK(evaluate(tree, in_runs) == evaluate(tree, in_expanded));
  CHECK(evaluate_balanced(tree, in_runs) == evaluate_balanced(tree, in_expanded));
  std::array<double, n_slots<Tree>> bounds_expanded{}, bounds_runs{};
  evaluate_bounds(tree, in_expanded, std::span<double, n_slots<Tree>>(bounds_expanded));
  evaluate_bounds(tree, in_runs, std::span<double, n_slots<Tree>>(bounds_runs));
  CHECK(bounds_runs == bounds_expanded);

  // The runs must cover the fanout's degree, with one length per run.
  const std::vector<std::uint32_t> short_count{2, 1, 1, 1};
  CHECK_THROWS_AS(evaluate(tree, inputs(input<"embed">(TokensInput{7}),
                                        fanout_input(RankRuns<RankIn>{runs, short_count}))),
                  InputError);
  const std::vector<std::uint32_t> too_few_lengths{2, 1, 3};
  CHECK_THROWS_AS(evaluate(tree, inputs(input<"embed">(TokensInput{7}),
                                        fanout_input(RankRuns<RankIn>{runs, too_few_lengths}))),
                  InputError);
}
