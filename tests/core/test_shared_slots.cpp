// Repeated slots answer once per evaluation (detail/shared_slots.hpp): a leaf of a type
// that occurs again in the tree, whose kernel answers as an earlier one's and whose
// input is the same bytes, copies that answer; the totals, rows and manifests are what
// evaluating every leaf gives, bit for bit.
#include <doctest/doctest.h>

#include <cstdint>
#include <vector>

#include <boost/mp11/algorithm.hpp>

#include "costdsl/costdsl.hpp"
#include "costdsl/kernels/all_reduce.hpp"
#include "costdsl/kernels/gemm.hpp"
#include "test_kernel.hpp"

using namespace costdsl;
using namespace costdsl::testing;

namespace {

// A reflected input: a value the Reevaluator keeps and compares.
struct CountInput {
  COSTDSL_FIELDS((std::uint64_t, tokens));
};

// An affine kernel that counts its evaluations and can tell whether another answers alike.
struct CountedKernel {
  static constexpr std::string_view kind = "counted";
  using Input = CountInput;
  double per_token_s = 1e-9;
  int* evaluations = nullptr;

  Metrics eval(const Input& in) const {
    ++*evaluations;
    const double t = double(in.tokens);
    return Metrics{1e-6 + per_token_s * t, 2 * t, 4 * t, 0, Coverage::none, 0};
  }
  bool same_answers_as(const CountedKernel& o) const noexcept { return per_token_s == o.per_token_s; }
  std::vector<ConfigField> config_fields() const { return {{"per_token_s", per_token_s}}; }
  std::vector<std::string> backends() const { return {"synthetic"}; }
};

// A layer's attention and MLP all-reduce (same name, kernel, input) and an embedding's,
// and the inputs of the three.
auto allreduce_tree(const CountedKernel& k) {
  return sum(labeled<"embed">("embed", leaf<"allreduce">(k)),
             scale(Static<80>{}, sum(labeled<"attn">("attn", leaf<"allreduce">(k)),
                                     labeled<"mlp">("mlp", leaf<"allreduce">(k)))));
}
auto allreduce_inputs(std::uint64_t embed, std::uint64_t attn, std::uint64_t mlp) {
  return inputs(nest<"embed">(inputs(input<"allreduce">(CountInput{embed}))),
                nest<"attn">(inputs(input<"allreduce">(CountInput{attn}))),
                nest<"mlp">(inputs(input<"allreduce">(CountInput{mlp}))));
}

// Every leaf evaluated: the fold without a memo.
template <class Tree, class Ins>
Metrics evaluate_unshared(const Tree& tree, const Ins& in, Metrics* row) {
  return detail::eval_node<0, 0, detail::Pass::row, Quantities::time_and_work>(tree, in, row);
}

}  // namespace

TEST_CASE("shared slots: a repeated leaf with the same kernel and input is evaluated once") {
  int n = 0;
  const auto tree = allreduce_tree(CountedKernel{1e-9, &n});
  using Tree = decltype(tree);
  static_assert(boost::mp11::mp_size<detail::share_classes<Tree>::type>::value == 1);
  const auto in = allreduce_inputs(512, 512, 512);
  std::array<Metrics, 3> row{};
  const Metrics total = evaluate(tree, in, row);
  CHECK(n == 1);
  CHECK(row[0] == row[1]);  // the row still shows every slot
  CHECK(row[1] == row[2]);
  n = 0;
  std::array<Metrics, 3> every{};
  CHECK(total == evaluate_unshared(tree, in, every.data()));
  CHECK(n == 3);
  CHECK(row == every);
  CHECK(total == make_manifest(tree).tree.aggregate(row));

  SUBCASE("another input is evaluated") {
    n = 0;
    const auto other = allreduce_inputs(512, 512, 64);
    std::array<Metrics, 3> r{};
    const Metrics t = evaluate(tree, other, r);
    CHECK(n == 2);
    CHECK(r[2].flops == 128);
    std::array<Metrics, 3> e{};
    CHECK(t == evaluate_unshared(tree, other, e.data()));
    CHECK(r == e);
  }
}

TEST_CASE("shared slots: kernels that answer differently, or cannot say, are each evaluated") {
  int n = 0;
  const auto tree = sum(labeled<"a">("a", leaf<"allreduce">(CountedKernel{1e-9, &n})),
                        labeled<"b">("b", leaf<"allreduce">(CountedKernel{2e-9, &n})));
  const auto in = inputs(nest<"a">(inputs(input<"allreduce">(CountInput{100}))),
                         nest<"b">(inputs(input<"allreduce">(CountInput{100}))));
  std::array<Metrics, 2> row{};
  evaluate(tree, in, row);
  CHECK(n == 2);
  CHECK(row[0].time_s < row[1].time_s);

  // AffineKernel has no same_answers_as: its repeats are no share class.
  const auto plain = sum(labeled<"a">("a", leaf<"x">(AffineKernel{1e-6, 1e-9, 1, Coverage::none, 0})),
                         labeled<"b">("b", leaf<"x">(AffineKernel{1e-6, 1e-9, 1, Coverage::none, 0})));
  static_assert(boost::mp11::mp_size<detail::share_classes<decltype(plain)>::type>::value == 0);

  // A gated slot shares only with one gated the same way; each class keeps its first
  // answer, so an unlike slot between two alike ones does not cost the second its copy.
  int g = 0;
  const CountedKernel k{1e-9, &g};
  const auto gated = sum(labeled<"a">("a", when(true, leaf<"allreduce">(k))),
                         labeled<"b">("b", when(true, leaf<"allreduce">(k))),
                         labeled<"c">("c", when(false, leaf<"allreduce">(k))),
                         labeled<"d">("d", when(true, leaf<"allreduce">(k))));
  const auto gin = inputs(nest<"a">(inputs(when(true, input<"allreduce">(CountInput{100})))),
                          nest<"b">(inputs(when(true, input<"allreduce">(CountInput{100})))),
                          nest<"c">(inputs(when(false, input<"allreduce">(CountInput{100})))),
                          nest<"d">(inputs(when(true, input<"allreduce">(CountInput{100})))));
  std::array<Metrics, 4> grow{};
  evaluate(gated, gin, grow);
  CHECK(g == 1);
  CHECK(grow[2] == Metrics{});
  CHECK(grow[1] == grow[0]);
  CHECK(grow[3] == grow[0]);
}

TEST_CASE("shared slots: the same DP group in two Fanouts answers once, whatever the number of groups") {
  int n = 0;
  const CountedKernel k{1e-9, &n};
  const auto group = [&](auto other) {
    return labeled<"dp">("dp group", sum(leaf<"attn">(k), std::move(other)));
  };
  // DeepSeek's shape: the dense layers' groups (attention + MLP), then the MoE layers'
  // (attention + router), each a Fanout over the same DP groups.
  const auto make_tree = [&](std::uint64_t groups) {
    return sum(labeled<"dense">("dense", fanout(groups, group(leaf<"mlp">(AffineKernel{1e-6, 1e-9, 1, Coverage::none, 0})))),
               labeled<"moe">("moe", fanout(groups, group(leaf<"router">(AffineKernel{2e-6, 1e-9, 1, Coverage::none, 0})))));
  };
  using Tree = decltype(make_tree(1));
  using DenseIn = rank_inputs_t<decltype(group(leaf<"mlp">(AffineKernel{})))>;
  using MoeIn = rank_inputs_t<decltype(group(leaf<"router">(AffineKernel{})))>;
  for (const std::uint64_t groups : {1, 3, 16, 40}) {
    CAPTURE(groups);
    std::vector<DenseIn> dense;
    std::vector<MoeIn> moe;
    for (std::size_t r = 0; r < groups; ++r) {
      const double tokens = double(100 + 37 * r);
      dense.push_back(nest<"dp">(inputs(input<"attn">(CountInput{std::uint64_t(tokens)}), input<"mlp">(TokensInput{tokens}))));
      moe.push_back(nest<"dp">(inputs(input<"attn">(CountInput{std::uint64_t(tokens)}), input<"router">(TokensInput{tokens}))));
    }
    const Tree t = make_tree(groups);
    const auto in = inputs(nest<"dense">(inputs(fanout_input(dense))), nest<"moe">(inputs(fanout_input(moe))));
    n = 0;
    std::array<Metrics, n_slots<Tree>> row{};
    const Metrics total = evaluate(t, in, row);
    // Groups past the memo's 16 runs find the first Fanout's group of their index modulo
    // 16, whose input differs: they are evaluated.
    CHECK(n == int(groups <= 16 ? groups : 2 * groups - 16));
    n = 0;
    std::array<Metrics, n_slots<Tree>> every{};
    CHECK(total == evaluate_unshared(t, in, every.data()));
    CHECK(n == int(2 * groups));
    CHECK(row == every);
    CHECK(evaluate_balanced(t, in) == detail::eval_node<0, 0, detail::Pass::balanced, Quantities::time_and_work>(t, in, nullptr));
  }
}

TEST_CASE("shared slots: bound kernels answer alike only with the same config, tables and roofline") {
  const Timing roofline = load_timing("h100", TimingMode::roofline);
  const Kernel<kernels::Gemm> a(roofline, {Dtype::bf16, Dim{8192}, Dim{8192}});
  const Kernel<kernels::Gemm> b(roofline, {Dtype::bf16, Dim{8192, "hidden", {}}, Dim{8192}});
  const Kernel<kernels::Gemm> c(roofline, {Dtype::bf16, Dim{1024}, Dim{8192}});
  const Kernel<kernels::Gemm> d(roofline, {Dtype::fp8, Dim{8192}, Dim{8192}});
  CHECK(a.same_answers_as(b));  // a Dim's provenance is not its value
  CHECK(!a.same_answers_as(c));
  CHECK(!a.same_answers_as(d));
  // Another Timing is another roofline object: not called alike, even with equal parameters.
  const Timing other = load_timing("h100", TimingMode::roofline);
  CHECK(!a.same_answers_as(Kernel<kernels::Gemm>(other, {Dtype::bf16, Dim{8192}, Dim{8192}})));
  // A copy of the Timing shares its roofline; one preferring a framework binds otherwise.
  CHECK(a.same_answers_as(Kernel<kernels::Gemm>(roofline.with_analytic_memo(0), {Dtype::bf16, Dim{8192}, Dim{8192}})));
  CHECK(!a.same_answers_as(
      Kernel<kernels::Gemm>(roofline.with_kernel_framework("vllm"), {Dtype::bf16, Dim{8192}, Dim{8192}})));

  // Measured: both backends of an 8-GPU all-reduce (NCCL and the custom one) bound to the
  // same tables; another GPU count binds others; the roofline of the same config is not them.
  const Timing measured = load_timing("h100");
  const Kernel<kernels::AllReduce> ar8(measured, {Dim{8}});
  REQUIRE(ar8.source() == "profile");
  CHECK(ar8.same_answers_as(Kernel<kernels::AllReduce>(measured, {Dim{8}})));
  CHECK(!ar8.same_answers_as(Kernel<kernels::AllReduce>(measured, {Dim{4}})));
  CHECK(!ar8.same_answers_as(Kernel<kernels::AllReduce>(roofline, {Dim{8}})));
  for (const std::uint64_t bytes : {1ull << 10, 1ull << 20, 1ull << 26})
    CHECK(ar8.eval({bytes}) == Kernel<kernels::AllReduce>(measured, {Dim{8}}).eval({bytes}));
}

TEST_CASE("shared slots: evaluate_many and the Reevaluator share as evaluate() does") {
  int n = 0;
  const auto tree = allreduce_tree(CountedKernel{1e-9, &n});
  const auto at = allreduce_inputs;
  using In = decltype(at(0, 0, 0));
  // Iterations: all alike; the MLP's differs; the same as the one before; all new.
  const std::vector<In> in{at(8, 8, 8), at(8, 8, 9), at(8, 8, 9), at(5, 5, 5)};
  std::vector<Metrics> out(in.size());
  evaluate_many(tree, std::span<const In>(in), std::span<Metrics>(out));
  CHECK(n == 1 + 1 + 0 + 1);
  for (std::size_t i = 0; i < in.size(); ++i) CHECK(out[i] == evaluate(tree, in[i]));

  n = 0;
  Reevaluator<decltype(tree), In> again;
  for (std::size_t i = 0; i < in.size(); ++i) CHECK(again(tree, in[i]) == out[i]);
  // 1; the MLP's input changed (the others keep their rows): 1;
  // nothing changed: 0; every input changed: 1.
  CHECK(n == 3);
}
