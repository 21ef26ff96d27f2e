// One scheduler iteration of a whole model, the simulator's inner loop:
//   iteration/<arch>/static    the static form: one inlined fold over the tree type
//   iteration/<arch>/runtime   the run-time form's leaves into a slot row + the flat twin's reverse pass
//   iteration/<arch>/manifest  re-aggregating a slot row over the manifest's flat nodes
// Batch: one 4096-token prefill chunk + 64 decodes at 2048 KV. Leaves are
// interpolated from profile tables (synthetic: roofline values on the sweep grid).
#include <benchmark/benchmark.h>

#include <array>
#include <filesystem>
#include <vector>

#include "costdsl/archs/llama3.hpp"
#include "synthetic_profiles.hpp"

namespace {
using namespace costdsl;

struct Batch {
  std::vector<ops::PrefillChunk> prefill{{0, 4096}};
  std::vector<std::uint32_t> decode = std::vector<std::uint32_t>(64, 2048);
  archs::Iteration it() const { return {prefill, decode}; }
};

// A Timing whose profile DB covers every leaf of `tree`.
template <class Tree>
Timing interpolating_timing(const Tree& roofline_tree, const char* name) {
  const Timing rf = Timing::for_gpu("h200", TimingMode::roofline);
  const auto dir = std::filesystem::temp_directory_path() / (std::string("costdsl-bench-") + name);
  bench::write_synthetic_profiles(roofline_tree, rf, dir);
  return Timing::for_gpu("h200", TimingMode::automatic, dir);
}

template <class Arch>
void static_form(benchmark::State& state, const Arch& arch, const char* name) {
  const Timing t = interpolating_timing(arch.build(Timing::for_gpu("h200", TimingMode::roofline)), name);
  const auto tree = arch.build(t);
  Batch b;
  for (auto _ : state) {
    benchmark::DoNotOptimize(b.decode.data());
    benchmark::DoNotOptimize(evaluate(tree, arch.inputs(b.it())));
  }
  state.counters["slots"] = double(n_slots<decltype(tree)>);
  state.counters["ms_per_iteration"] = evaluate(tree, arch.inputs(b.it())).time_ms();
}

template <class Arch>
void runtime_form(benchmark::State& state, const Arch& arch, const char* name) {
  const Timing t = interpolating_timing(arch.build(Timing::for_gpu("h200", TimingMode::roofline)), name);
  const auto tree = arch.build(t);
  using Tree = decltype(tree);
  const FlatTree flat = lower(tree);
  std::array<Metrics, n_slots<Tree>> row{};
  std::vector<Metrics> scratch(flat.size());
  Batch b;
  for (auto _ : state) {
    benchmark::DoNotOptimize(b.decode.data());
    evaluate(tree, arch.inputs(b.it()), std::span<Metrics, n_slots<Tree>>(row));
    benchmark::DoNotOptimize(flat.aggregate(row, scratch));
  }
}

template <class Arch>
void manifest_replay(benchmark::State& state, const Arch& arch, const char* name) {
  const Timing t = interpolating_timing(arch.build(Timing::for_gpu("h200", TimingMode::roofline)), name);
  const auto tree = arch.build(t);
  using Tree = decltype(tree);
  const FlatTree flat = flat_tree_from_manifest(nlohmann::json::parse(to_json(make_manifest(tree)).dump()));
  std::array<Metrics, n_slots<Tree>> row{};
  Batch b;
  evaluate(tree, arch.inputs(b.it()), std::span<Metrics, n_slots<Tree>>(row));
  std::vector<Metrics> scratch(flat.size());
  for (auto _ : state) {
    benchmark::DoNotOptimize(row.data());
    benchmark::DoNotOptimize(flat.aggregate(row, scratch));
  }
}

// The floor: the distinct leaf lookups the iteration needs, and nothing else.
void leaf_floor(benchmark::State& state) {
  const archs::Llama3<Fixed<archs::llama3_70b.with_tp(8)>> arch;
  const Timing t = interpolating_timing(arch.build(Timing::for_gpu("h200", TimingMode::roofline)), "llama3_70b");
  const Kernel<kernels::Gemm> gemm(t, {Dtype::bf16, 1280, 8192});
  const Kernel<kernels::AttnDecode> decode(t, {Dtype::bf16, 8, 1, 128});
  std::uint64_t m = 4160;
  for (auto _ : state) {
    benchmark::DoNotOptimize(m);
    benchmark::DoNotOptimize(gemm.eval({m}));
    benchmark::DoNotOptimize(decode.eval({64, 64 * 2048}));
  }
}
BENCHMARK(leaf_floor)->Name("leaf/gemm_1d_plus_decode_2d");

const archs::Llama3<Fixed<archs::llama3_70b.with_tp(8)>> llama3_70b_static;
const archs::Llama3<archs::Llama3Config> llama3_70b_runtime(archs::llama3_70b.with_tp(8));

BENCHMARK_CAPTURE(static_form, llama3_70b, llama3_70b_static, "llama3_70b")->Name("iteration/llama3_70b/static");
BENCHMARK_CAPTURE(runtime_form, llama3_70b, llama3_70b_runtime, "llama3_70b")->Name("iteration/llama3_70b/runtime");
BENCHMARK_CAPTURE(manifest_replay, llama3_70b, llama3_70b_static, "llama3_70b")
    ->Name("iteration/llama3_70b/manifest");

}  // namespace
