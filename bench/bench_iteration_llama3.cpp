// iteration/llama3_70b/*: Llama-3-70B at TP 8 on H200; and leaf/*, the floor of its hot path.
#include "costdsl/costdsl.hpp"
#include "costdsl/archs/llama3.hpp"
#include "iteration.hpp"

namespace {
using namespace costdsl;

const archs::Llama3<Fixed<deploy(archs::llama3_70b, {.tp = 8})>> static_arch;
const archs::Llama3<archs::Llama3Config> runtime_arch(deploy(archs::llama3_70b, {.tp = 8}));
const bool registered = (bench::register_iteration("llama3_70b", static_arch, runtime_arch), true);

// The floor: the distinct leaf lookups the iteration needs, and nothing else.
void leaf_floor(benchmark::State& state) {
  const Timing t = bench::interpolating_timing(static_arch.build(load_timing("h200", TimingMode::roofline)),
                                               "llama3_70b");
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

// The static iteration on the shipped H100 tables (aiconfigurator's measurements) instead
// of synthetic ones: a GEMM config between measured ones blends up to four tables, each
// on its own m grid, where the synthetic tables hold every config exactly.
void h100_tables(benchmark::State& state) {
  const auto tree = static_arch.build(load_timing("h100", TimingMode::automatic));
  bench::Batch b;
  bench::Feed feed(static_arch);
  for (auto _ : state) {
    benchmark::DoNotOptimize(b.decode.data());
    benchmark::DoNotOptimize(evaluate(tree, feed(b.it())));
  }
  state.counters["ms_per_iteration"] = evaluate(tree, feed(b.it())).time_ms();
}
BENCHMARK(h100_tables)->Name("iteration/llama3_70b/static_h100_tables");

// evaluate_many over 256 iterations (inputs made beforehand) against evaluate() called on
// each: time per batch of 256, ns_per_iteration = that / 256. Two sweeps a planner runs:
//   decodes   the 4096-token chunk with 1..256 decodes at 2048 KV: every leaf's input
//             changes but the prefill attention's
//   kv        the chunk and 64 decodes at 256 KV lengths, 64..16384: only the decode
//             attention's input changes, and evaluate_many evaluates the other leaves once
//             per block of 16 (it reuses a leaf's metrics when its input repeats)
enum class Sweep { decodes, kv };
template <bool Many, Sweep S>
void batch_of_256(benchmark::State& state) {
  const Timing t = bench::interpolating_timing(static_arch.build(load_timing("h200", TimingMode::roofline)),
                                               "llama3_70b");
  const auto tree = static_arch.build(t);
  const std::vector<ops::PrefillChunk> prefill{{0, 4096}};
  std::vector<std::vector<std::uint32_t>> decode;
  for (std::uint32_t i = 1; i <= 256; ++i) {
    if constexpr (S == Sweep::decodes) {
      decode.emplace_back(i, 2048);
    } else {
      decode.emplace_back(64, 64 * i);
    }
  }
  std::vector<decltype(static_arch.inputs(ops::AttentionBatch{}))> in;
  for (const auto& d : decode) in.push_back(static_arch.inputs(ops::AttentionBatch{prefill, d}));
  std::vector<Metrics> out(in.size());
  for (auto _ : state) {
    benchmark::DoNotOptimize(in.data());
    if constexpr (Many) {
      evaluate_many(tree, std::span(in), std::span(out));
    } else {
      for (std::size_t i = 0; i < in.size(); ++i) out[i] = evaluate(tree, in[i]);
    }
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  state.counters["ns_per_iteration"] =
      benchmark::Counter(double(in.size()), benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}
BENCHMARK(batch_of_256<true, Sweep::decodes>)->Name("iteration/llama3_70b/many256");
BENCHMARK(batch_of_256<false, Sweep::decodes>)->Name("iteration/llama3_70b/loop256");
BENCHMARK(batch_of_256<true, Sweep::kv>)->Name("iteration/llama3_70b/many256_kv_sweep");
BENCHMARK(batch_of_256<false, Sweep::kv>)->Name("iteration/llama3_70b/loop256_kv_sweep");

}  // namespace
