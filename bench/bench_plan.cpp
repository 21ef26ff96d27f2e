// plan/*: whole deployment searches (serve::Planner), as `costdsl plan` runs them less
// the printing: the arch family made, every tree built, every candidate simulated.
//   plan/llama3_70b_8xh200     the command: --gpus 8 --isl 4000 --osl 500 --ttft 300 --tpot 20 (agg + disagg)
//   plan/deepseek_v3_64xh200   --gpus 64 --isl 4000 --osl 500 --ttft 1000 --tpot 50 (agg + disagg)
// Arg: 1 = iteration times remembered by batch for DP-attention workers (the default), 0 = never.
#include <benchmark/benchmark.h>

#include "costdsl/archs/deepseek_v3.hpp"
#include "costdsl/archs/llama3.hpp"
#include "costdsl/data_dir.hpp"
#include "costdsl/load_hf_config.hpp"
#include "costdsl/load_timing.hpp"
#include "costdsl/serve/arch_family.hpp"
#include "costdsl/serve/planner.hpp"

namespace {
using namespace costdsl;

const Timing& h200() {
  static const Timing t = load_timing("h200");  // as the CLI: measured where covered, else roofline
  return t;
}

serve::PlanSpec spec(std::uint32_t gpus, double ttft_s, double tpot_s) {
  serve::PlanSpec s;
  s.gpus = gpus;
  s.input_tokens = 4000;
  s.output_tokens = 500;
  s.sla.ttft_s = ttft_s;
  s.sla.tpot_s = tpot_s;
  return s;
}

template <class Make>
void search(benchmark::State& state, Make make, bool expert_parallel, const serve::PlanSpec& s) {
  const serve::Memo memo = state.range(0) != 0 ? serve::Memo::automatic : serve::Memo::never;
  std::size_t rows = 0;
  for (auto _ : state) {
    serve::ArchFamily models(make, expert_parallel, h200(), {}, memo);
    serve::Planner planner(models, h200(), s);
    rows = planner.run().size();
    benchmark::DoNotOptimize(rows);
  }
  state.counters["deployments"] = static_cast<double>(rows);
}

void llama3_70b(benchmark::State& state) {
  static const HfConfig hf = load_hf_config(default_data_dir() / "models" / "llama3_70b.json");
  search(state, [](serve::Parallel p) { return archs::Llama3<archs::Llama3Config>(archs::Llama3Config::from_hf(hf, p.tp)); },
         false, spec(8, 0.300, 0.020));
}
BENCHMARK(llama3_70b)->Name("plan/llama3_70b_8xh200")->Arg(1)->Unit(benchmark::kMillisecond)->Iterations(5);

void deepseek_v3(benchmark::State& state) {
  static const HfConfig hf = load_hf_config(default_data_dir() / "models" / "deepseek_v3.json");
  search(state,
         [](serve::Parallel p) {
           return archs::DeepseekV3<archs::DeepseekV3Config>(archs::DeepseekV3Config::from_hf(hf, p.tp, p.ep));
         },
         true, spec(64, 1.0, 0.050));
}
BENCHMARK(deepseek_v3)->Name("plan/deepseek_v3_64xh200")->Arg(1)->Arg(0)->Unit(benchmark::kMillisecond)->Iterations(1);

}  // namespace
