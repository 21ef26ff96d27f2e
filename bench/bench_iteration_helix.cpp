// iteration_hp/llama3_70b/*: KV-parallel decode against its tp twin (issue 20's speed
// target: an hp iteration costs at most 1.3× its twin's on the same inputs). hp is
// decode-only, so the batch is 64 decodes at 8192 tokens of KV (no prefill chunk).
//   tp8        Llama-3-70B TP 8, the tp grain
//   tp8_hp2    the same model at TP 8 × hp 2: the KV dealt over the hp ranks once per
//              iteration, read by the two rank-folded slots
// Inputs as `costdsl eval` and the simulator build them (archs::BatchFeed, warm), twin and
// hp alike: the hp arch deals into the feed's scratch.
//   tp8_hp2_hop_b  plus HOP-B: the exchange's exposed time over 2/4/8 batch slices
#include <benchmark/benchmark.h>

#include <cstdint>
#include <vector>

#include "costdsl/costdsl.hpp"
#include "costdsl/archs/llama3.hpp"
#include "iteration.hpp"

namespace {
using namespace costdsl;
using archs::AttnGrain;

constexpr archs::Llama3Config hop_b_config = [] {
  archs::Llama3Config c = deploy(archs::llama3_70b, {.tp = 8, .hp = 2});
  c.hop_b = true;
  return c;
}();

// twin: the model's other form (run-time for a static arch, static for a run-time one),
// which must compute the same iteration (bench::check_against_twin).
template <class Arch, class Twin>
void decode_iteration(benchmark::State& state, const Arch& arch, const Twin& twin, const char* name) {
  const Timing t = bench::interpolating_timing(arch.build(load_timing("h200", TimingMode::roofline)), name);
  const auto tree = arch.build(t);
  const std::vector<ops::PrefillChunk> prefill;
  std::vector<std::uint32_t> decode(64, 8192);
  bench::Feed feed(arch);
  Metrics last;
  for (auto _ : state) {
    benchmark::DoNotOptimize(decode.data());
    last = evaluate(tree, feed({prefill, decode}));
    benchmark::DoNotOptimize(last);
  }
  state.counters["ms_per_iteration"] = last.time_ms();
  bench::check_against_twin(state, last, twin, t, {prefill, decode});
}

const archs::Llama3<Fixed<deploy(archs::llama3_70b, {.tp = 8})>> tp8;
const archs::Llama3<Fixed<deploy(archs::llama3_70b, {.tp = 8, .hp = 2})>> tp8_hp2;
const archs::Llama3<Fixed<hop_b_config>> tp8_hp2_hop_b;
const archs::Llama3<archs::Llama3Config> tp8_runtime(deploy(archs::llama3_70b, {.tp = 8}));
const archs::Llama3<archs::Llama3Config, AttnGrain::hptp> tp8_hp2_runtime(deploy(archs::llama3_70b, {.tp = 8, .hp = 2}));
const archs::Llama3<archs::Llama3Config, AttnGrain::hptp> tp8_hp2_hop_b_runtime(hop_b_config);

BENCHMARK_CAPTURE(decode_iteration, tp8, tp8, tp8_runtime, "helix_tp8")->Name("iteration_hp/llama3_70b/tp8/static");
BENCHMARK_CAPTURE(decode_iteration, tp8_hp2, tp8_hp2, tp8_hp2_runtime, "helix_tp8_hp2")
    ->Name("iteration_hp/llama3_70b/tp8_hp2/static");
BENCHMARK_CAPTURE(decode_iteration, tp8_hp2_hop_b, tp8_hp2_hop_b, tp8_hp2_hop_b_runtime, "helix_tp8_hp2_hop_b")
    ->Name("iteration_hp/llama3_70b/tp8_hp2_hop_b/static");
BENCHMARK_CAPTURE(decode_iteration, tp8_runtime, tp8_runtime, tp8, "helix_tp8_rt")
    ->Name("iteration_hp/llama3_70b/tp8/runtime");
BENCHMARK_CAPTURE(decode_iteration, tp8_hp2_runtime, tp8_hp2_runtime, tp8_hp2, "helix_tp8_hp2_rt")
    ->Name("iteration_hp/llama3_70b/tp8_hp2/runtime");

}  // namespace
