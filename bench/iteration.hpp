#pragma once
// One scheduler iteration of a whole model, the simulator's inner loop (one TU per arch
// includes this and registers):
//   iteration/<arch>/static    the static form: one inlined fold over the tree type
//   iteration/<arch>/runtime   the run-time form's leaves into a slot row + the flat twin's reverse pass
//   iteration/<arch>/manifest  re-aggregating a slot row over the manifest's flat nodes
// Batch: one 4096-token prefill chunk + 64 decodes at 2048 KV (MoE archs deal it over
// their DP groups round-robin, as `costdsl eval` does; the dealing is part of the
// timed iteration). Leaves are interpolated from profile tables (synthetic: roofline
// values on the sweep grid).
#include <benchmark/benchmark.h>

#include <array>
#include <filesystem>
#include <string>
#include <vector>

#include "costdsl/costdsl.hpp"
#include "costdsl/archs/support/batch_feed.hpp"
#include "synthetic_profiles.hpp"

namespace costdsl::bench {

struct Batch {
  std::vector<ops::PrefillChunk> prefill{{0, 4096}};
  std::vector<std::uint32_t> decode = std::vector<std::uint32_t>(64, 2048);
  ops::AttentionBatch it() const { return {prefill, decode}; }
};

// The arch's slot inputs for a batch (dense archs take it whole, DP-attention MoE archs
// dealt over their groups): archs::BatchFeed, warm after the first call.
template <class Arch>
class Feed {
 public:
  explicit Feed(const Arch& arch) : arch_(arch) {}
  auto operator()(const ops::AttentionBatch& batch) { return feed_(arch_, batch); }

 private:
  const Arch& arch_;
  archs::BatchFeed feed_;
};

// A Timing whose profile DB covers every leaf of `tree`.
template <class Tree>
Timing interpolating_timing(const Tree& roofline_tree, const char* name) {
  const Timing rf = load_timing("h200", TimingMode::roofline);
  const auto dir = std::filesystem::temp_directory_path() / (std::string("costdsl-bench-") + name);
  write_synthetic_profiles(roofline_tree, rf, dir);
  return load_timing("h200", TimingMode::automatic, dir);
}

template <class Arch>
void static_form(benchmark::State& state, const Arch& arch, const char* name) {
  const Timing t = interpolating_timing(arch.build(load_timing("h200", TimingMode::roofline)), name);
  const auto tree = arch.build(t);
  Batch b;
  Feed feed(arch);
  for (auto _ : state) {
    benchmark::DoNotOptimize(b.decode.data());
    benchmark::DoNotOptimize(evaluate(tree, feed(b.it())));
  }
  state.counters["slots"] = double(n_slots<decltype(tree)>);
  state.counters["ms_per_iteration"] = evaluate(tree, feed(b.it())).time_ms();
}

template <class Arch>
void runtime_form(benchmark::State& state, const Arch& arch, const char* name) {
  const Timing t = interpolating_timing(arch.build(load_timing("h200", TimingMode::roofline)), name);
  const auto tree = arch.build(t);
  using Tree = decltype(tree);
  const FlatTree flat = lower(tree);
  std::array<Metrics, n_slots<Tree>> row{};
  std::vector<Metrics> scratch(flat.size());
  Batch b;
  Feed feed(arch);
  for (auto _ : state) {
    benchmark::DoNotOptimize(b.decode.data());
    evaluate(tree, feed(b.it()), std::span<Metrics, n_slots<Tree>>(row));
    benchmark::DoNotOptimize(flat.aggregate(row, scratch));
  }
}

template <class Arch>
void manifest_replay(benchmark::State& state, const Arch& arch, const char* name) {
  const Timing t = interpolating_timing(arch.build(load_timing("h200", TimingMode::roofline)), name);
  const auto tree = arch.build(t);
  using Tree = decltype(tree);
  const FlatTree flat = flat_tree_from_manifest(nlohmann::json::parse(to_json(make_manifest(tree)).dump()));
  std::array<Metrics, n_slots<Tree>> row{};
  Batch b;
  Feed feed(arch);
  evaluate(tree, feed(b.it()), std::span<Metrics, n_slots<Tree>>(row));
  std::vector<Metrics> scratch(flat.size());
  for (auto _ : state) {
    benchmark::DoNotOptimize(row.data());
    benchmark::DoNotOptimize(flat.aggregate(row, scratch));
  }
}

// The three benchmarks of one arch: a static-form and a run-time-form object of it.
template <class Static, class Runtime>
void register_iteration(const char* name, const Static& static_arch, const Runtime& runtime_arch) {
  const std::string prefix = std::string("iteration/") + name;
  benchmark::RegisterBenchmark((prefix + "/static").c_str(), [&static_arch, name](benchmark::State& s) {
    static_form(s, static_arch, name);
  });
  benchmark::RegisterBenchmark((prefix + "/runtime").c_str(), [&runtime_arch, name](benchmark::State& s) {
    runtime_form(s, runtime_arch, name);
  });
  benchmark::RegisterBenchmark((prefix + "/manifest").c_str(), [&static_arch, name](benchmark::State& s) {
    manifest_replay(s, static_arch, name);
  });
}

}  // namespace costdsl::bench
