// iteration/llama3_70b/*: Llama-3-70B at TP 8 on H200; and leaf/*, the floor of its hot path.
#include "costdsl/costdsl.hpp"
#include "costdsl/archs/llama3.hpp"
#include "iteration.hpp"

namespace {
using namespace costdsl;

const archs::Llama3<Fixed<archs::llama3_70b.with_tp(8)>> static_arch;
const archs::Llama3<archs::Llama3Config> runtime_arch(archs::llama3_70b.with_tp(8));
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

}  // namespace
