// plan/*: whole deployment searches (serve::Planner), as `costdsl plan` runs them less
// the printing: the arch family made, every tree built, every candidate simulated.
//   plan/llama3_70b_8xh200     the command: --gpus 8 --isl 4000 --osl 500 --ttft 300 --tpot 20 (agg + disagg)
//   plan/deepseek_v3_64xh200   --gpus 64 --isl 4000 --osl 500 --ttft 1000 --tpot 50 (agg + disagg)
// Arg: 1 = iteration times remembered by batch for DP-attention workers (the default), 0 = never.
// simulate/*: one pinned deployment (serve::UnitSimulator), as `costdsl simulate` runs it
// less the printing: the family made, the workers' trees built, one unit simulated.
//   simulate/llama3_70b_tp8_h200     --tp 8 --batch 16 --isl 4000 --osl 500 (closed loop of 16)
//   simulate/deepseek_v3_disagg_h200 --mode disagg: 4 prefill tp1dp16ep16 + 1 decode tp1dp32ep32,
//                                     --batch 512 --isl 4000 --osl 500 (closed loop of 512)
#include <benchmark/benchmark.h>

#include <optional>

#include "costdsl/archs/deepseek_v3.hpp"
#include "costdsl/archs/llama3.hpp"
#include "costdsl/data_dir.hpp"
#include "costdsl/load_hf_config.hpp"
#include "costdsl/load_timing.hpp"
#include "costdsl/serve/arch_family.hpp"
#include "costdsl/serve/planner.hpp"
#include "costdsl/serve/unit_simulator.hpp"

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
  search(state, [](serve::Parallel p) { return archs::Llama3<archs::Llama3Config>(archs::Llama3Config::from_hf(hf, {.tp = p.tp})); },
         false, spec(8, 0.300, 0.020));
}
BENCHMARK(llama3_70b)->Name("plan/llama3_70b_8xh200")->Arg(1)->Unit(benchmark::kMillisecond)->Iterations(5);

void deepseek_v3(benchmark::State& state) {
  static const HfConfig hf = load_hf_config(default_data_dir() / "models" / "deepseek_v3.json");
  search(state,
         [](serve::Parallel p) {
           return archs::DeepseekV3<archs::DeepseekV3Config>(archs::DeepseekV3Config::from_hf(hf, {.tp = p.tp, .ep = p.ep}));
         },
         true, spec(64, 1.0, 0.050));
}
BENCHMARK(deepseek_v3)->Name("plan/deepseek_v3_64xh200")->Arg(1)->Arg(0)->Unit(benchmark::kMillisecond)->Iterations(1);

// One pinned deployment, the unit simulated once per benchmark iteration with its trees
// built inside it, as a CLI run builds them.
template <class Make>
void pinned(benchmark::State& state, Make make, bool expert_parallel, const serve::Candidate& c, serve::Parallel worker,
            std::optional<serve::Parallel> prefill) {
  serve::PlanSpec s = spec(1, serve::Sla::none, serve::Sla::none);  // the candidate pins its replicas
  s.load = serve::PlanSpec::LoadMode::concurrency;
  // What `costdsl simulate` measures by default: a benchmark's run (tools/cmd_simulate.cpp).
  s.warmup = serve::PlanSpec::benchmark_warmup;
  s.rounds = serve::PlanSpec::benchmark_rounds;
  double tokens_per_s = 0;
  std::uint64_t iterations = 0;
  for (auto _ : state) {
    serve::ArchFamily models(make, expert_parallel, h200());
    serve::UnitSimulator units(models, h200(), s);
    const std::optional<serve::WorkerOption> w = units.option(worker);
    const std::optional<serve::WorkerOption> p = prefill ? units.option(*prefill) : std::nullopt;
    const serve::PlanRow row = units.run(c, *w, p ? &*p : nullptr);
    tokens_per_s = row.tokens_per_s();
    iterations = row.r.iterations;
    benchmark::DoNotOptimize(tokens_per_s);
  }
  state.counters["iterations"] = static_cast<double>(iterations);
  state.counters["tokens_per_s"] = tokens_per_s;
}

void simulate_llama3_70b(benchmark::State& state) {
  static const HfConfig hf = load_hf_config(default_data_dir() / "models" / "llama3_70b.json");
  serve::Candidate c;
  c.batch = c.clients = 16;
  c.token_budget = 8192;
  c.replicas = 1;
  pinned(state, [](serve::Parallel p) { return archs::Llama3<archs::Llama3Config>(archs::Llama3Config::from_hf(hf, {.tp = p.tp})); },
         false, c, {8, 1, 1}, std::nullopt);
}
BENCHMARK(simulate_llama3_70b)->Name("simulate/llama3_70b_tp8_h200")->Unit(benchmark::kMillisecond)->Iterations(5);

void simulate_deepseek_v3(benchmark::State& state) {
  static const HfConfig hf = load_hf_config(default_data_dir() / "models" / "deepseek_v3.json");
  serve::Candidate c;
  c.mode = serve::Mode::disaggregated;
  c.prefill_workers = 4;
  c.decode_workers = 1;
  c.batch = c.clients = 512;
  c.token_budget = 8192 * 16;  // --token-budget 8192 per DP group
  c.replicas = 1;
  pinned(state,
         [](serve::Parallel p) {
           return archs::DeepseekV3<archs::DeepseekV3Config>(archs::DeepseekV3Config::from_hf(hf, {.tp = p.tp, .ep = p.ep}));
         },
         true, c, {1, 32, 1}, serve::Parallel{1, 16, 1});
}
BENCHMARK(simulate_deepseek_v3)->Name("simulate/deepseek_v3_disagg_h200")->Unit(benchmark::kMillisecond)->Iterations(3);

}  // namespace
