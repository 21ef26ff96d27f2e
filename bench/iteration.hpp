#pragma once
// One scheduler iteration of a whole model, the simulator's inner loop (one TU per arch
// includes this and registers):
//   iteration/<arch>/static    the static form: one inlined fold over the tree type (its
//                              result checked against the run-time form's: bench_smoke)
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

// What the timed loop computed must be the iteration the library computes: the static
// form's last result equal, bit for bit, to its twin's (the other form of the same model,
// design §1) on the same Timing and batch, and a real time (> 0, every leaf answered).
// Otherwise the benchmark fails (SkipWithError; main.cpp exits 1, so bench_smoke fails).
template <class Twin>
void check_against_twin(benchmark::State& state, const Metrics& got, const Twin& twin, const Timing& t,
                        const ops::AttentionBatch& batch) {
  const auto twin_tree = twin.build(t);
  Feed feed(twin);
  const Metrics want = evaluate(twin_tree, feed(batch));
  const bool same = got.time_s == want.time_s && got.flops == want.flops && got.bytes == want.bytes &&
                    got.coverage == want.coverage;
  if (!same || !(got.time_s > 0) || has(got.coverage, Coverage::no_coverage)) {
    const std::string why = "the timed iteration (" + std::to_string(got.time_s) + " s, coverage " +
                            std::to_string(unsigned(got.coverage)) + ") is not its twin's (" +
                            std::to_string(want.time_s) + " s, coverage " + std::to_string(unsigned(want.coverage)) +
                            ") or not a real time";
    state.SkipWithError(why.c_str());
  }
}

template <class Arch, class Twin>
void static_form(benchmark::State& state, const Arch& arch, const Twin& twin, const char* name) {
  const Timing t = interpolating_timing(arch.build(load_timing("h200", TimingMode::roofline)), name);
  const auto tree = arch.build(t);
  Batch b;
  Feed feed(arch);
  Metrics last;
  for (auto _ : state) {
    benchmark::DoNotOptimize(b.decode.data());
    last = evaluate(tree, feed(b.it()));
    benchmark::DoNotOptimize(last);
  }
  state.counters["slots"] = double(n_slots<decltype(tree)>);
  state.counters["ms_per_iteration"] = last.time_ms();
  check_against_twin(state, last, twin, t, b.it());
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

// iteration/<name>/static alone (checked against the run-time form).
template <class Static, class Runtime>
void register_static_iteration(const char* name, const Static& static_arch, const Runtime& runtime_arch) {
  benchmark::RegisterBenchmark((std::string("iteration/") + name + "/static").c_str(),
                               [&static_arch, &runtime_arch, name](benchmark::State& s) {
                                 static_form(s, static_arch, runtime_arch, name);
                               });
}

// The three benchmarks of one arch: a static-form and a run-time-form object of it.
template <class Static, class Runtime>
void register_iteration(const char* name, const Static& static_arch, const Runtime& runtime_arch) {
  const std::string prefix = std::string("iteration/") + name;
  register_static_iteration(name, static_arch, runtime_arch);
  benchmark::RegisterBenchmark((prefix + "/runtime").c_str(), [&runtime_arch, name](benchmark::State& s) {
    runtime_form(s, runtime_arch, name);
  });
  benchmark::RegisterBenchmark((prefix + "/manifest").c_str(), [&static_arch, name](benchmark::State& s) {
    manifest_replay(s, static_arch, name);
  });
}

}  // namespace costdsl::bench
