// Core fold cost: a realistic 40-leaf tree (an MoE layer stack with DP
// attention, EP experts and a shared expert on a side stream) aggregated by the
// static fold and by the runtime twin's reverse pass over the same slot row.
#include <benchmark/benchmark.h>

#include <array>
#include <vector>

#include "costdsl/config_field.hpp"
#include "costdsl/costdsl.hpp"

namespace {
using namespace costdsl;

// A leaf whose eval is a handful of flops, so the benchmark measures the fold.
struct Linear {
  static constexpr std::string_view kind = "linear";
  struct Input {
    double tokens;
  };
  double a, b;
  Metrics eval(const Input& in) const { return Metrics{a + b * in.tokens, 2 * b * in.tokens, b, 0, Coverage::none, 0}; }
  std::vector<ConfigField> config_fields() const { return {{"a", a}, {"b", b}}; }
  std::vector<std::string> backends() const { return {"synthetic"}; }
};

template <FixedString N>
auto L(double a) {
  return leaf<N>(Linear{a, 1e-9});
}

auto attn() {
  return sum(L<"norm">(1e-6), L<"qkv">(2e-6), L<"rope">(1e-6), L<"append">(1e-6), L<"prefill">(3e-6),
             L<"decode">(3e-6), L<"o_proj">(2e-6), L<"allreduce">(5e-6));
}
auto experts() { return sum(L<"up">(2e-6), L<"act">(1e-6), L<"down">(2e-6)); }

auto tree() {
  auto layer = sum(max_over(labeled<"dp0">("dp0", attn()), labeled<"dp1">("dp1", attn())), L<"router">(1e-6),
                   L<"dispatch">(4e-6),
                   parallel(Ratio<9, 10>{},
                            max_over(labeled<"ep0">("ep0", experts()), labeled<"ep1">("ep1", experts()),
                                     labeled<"ep2">("ep2", experts()), labeled<"ep3">("ep3", experts())),
                            labeled<"shared">("shared", experts())),
                   L<"combine">(4e-6), L<"post_norm">(1e-6));
  return labeled<"model">("model", sum(L<"embed">(1e-6), labeled<"layer">("layer", scale(Static<94>{}, layer)),
                                       L<"final_norm">(1e-6), L<"lm_head">(5e-6), L<"logits_gather">(1e-6),
                                       L<"sampler">(2e-6)));
}
using Tree = decltype(tree());
static_assert(n_slots<Tree> == 40);

auto make_inputs(double t) {
  return [&]<class... S>(boost::mp11::mp_list<S...>) {
    return Inputs<In<S::path, Linear::Input>...>{{In<S::path, Linear::Input>{{t}}...}};
  }(slot_list<Tree>{});
}

void static_fold(benchmark::State& state) {
  const auto t = tree();
  auto in = make_inputs(512);
  for (auto _ : state) {
    benchmark::DoNotOptimize(in);
    benchmark::DoNotOptimize(evaluate(t, in));
  }
}
BENCHMARK(static_fold)->Name("core/fold40/static");

void static_fold_with_row(benchmark::State& state) {
  const auto t = tree();
  auto in = make_inputs(512);
  std::array<Metrics, n_slots<Tree>> row{};
  for (auto _ : state) {
    benchmark::DoNotOptimize(in);
    benchmark::DoNotOptimize(evaluate(t, in, row));
    benchmark::ClobberMemory();
  }
}
BENCHMARK(static_fold_with_row)->Name("core/fold40/static_with_row");

void runtime_twin(benchmark::State& state) {
  const auto t = tree();
  const FlatTree flat = lower(t);
  std::array<Metrics, n_slots<Tree>> row{};
  evaluate(t, make_inputs(512), row);
  std::vector<Metrics> scratch(flat.size());
  for (auto _ : state) {
    benchmark::DoNotOptimize(row);
    benchmark::DoNotOptimize(flat.aggregate(row, scratch));
  }
  state.counters["nodes"] = double(flat.size());
}
BENCHMARK(runtime_twin)->Name("core/fold40/runtime_twin_aggregate");

// The whole runtime form: each leaf evaluated through a type-erased slot
// (what a tree built at run time has), then the reverse pass.
void runtime_form(benchmark::State& state) {
  const auto t = tree();
  const FlatTree flat = lower(t);
  struct Slot {
    Metrics (*eval)(const void*, double);
    const void* kernel;
  };
  std::vector<Linear> kernels;
  kernels.reserve(n_slots<Tree>);
  for (std::size_t i = 0; i < n_slots<Tree>; ++i) kernels.push_back(Linear{1e-6 * double(i % 5 + 1), 1e-9});
  std::vector<Slot> slots;
  for (const Linear& k : kernels)
    slots.push_back({[](const void* p, double tokens) { return static_cast<const Linear*>(p)->eval({tokens}); }, &k});
  std::vector<Metrics> row(slots.size()), scratch(flat.size());
  double tokens = 512;
  for (auto _ : state) {
    benchmark::DoNotOptimize(tokens);
    for (std::size_t i = 0; i < slots.size(); ++i) row[i] = slots[i].eval(slots[i].kernel, tokens);
    benchmark::DoNotOptimize(flat.aggregate(row, scratch));
  }
}
BENCHMARK(runtime_form)->Name("core/fold40/runtime_form");

}  // namespace
