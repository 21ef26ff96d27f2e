#pragma once
// What a deployment search is asked: the GPUs, the requests, the latency targets and
// the load, plus the search's own knobs.
#include <cstdint>
#include <vector>

#include "costdsl/serve/parallel.hpp"
#include "costdsl/serve/server_config.hpp"
#include "costdsl/serve/sla.hpp"

namespace costdsl::serve {

struct PlanSpec {
  std::uint32_t gpus = 8;           // GPUs available; a deployment uses at most this many
  std::uint32_t gpus_per_node = 8;  // TP stays inside a node; a disaggregated unit within it hands KV over NVLink
  std::uint32_t input_tokens = 4000, output_tokens = 500, cached_tokens = 0;
  std::uint32_t context_tokens = 0;  // the model's max_position_embeddings (0: unknown, not checked)
  Sla sla;

  // The load: `sweep` runs each deployment at concurrency = its batch cap (a closed loop
  // per replica, batch caps 1, 2, 4, ...), giving the throughput / latency trade-off;
  // `rate` offers Poisson arrivals at `rate` requests/s over the whole deployment;
  // `concurrency` keeps `concurrency` requests in flight over the whole deployment.
  enum class LoadMode : std::uint8_t { sweep, rate, concurrency };
  LoadMode load = LoadMode::sweep;
  double rate = 0;
  std::uint32_t concurrency = 0;
  // When a closed loop's clients send their first requests. `together`: all at once, as
  // the serving benchmarks do (vLLM's `vllm bench serve --max-concurrency C`, request rate
  // inf by default: every request is issued at once and a semaphore of C lets them
  // through, vllm/benchmarks/serve.py at vLLM commit 009e6d4a; aiperf's concurrency mode
  // likewise sends the next request as soon as a slot frees), so equal requests then move
  // in lockstep and each round's prefills share iterations. `staggered`: spread over about
  // one request's latency, the steady stream of independent users a service sees.
  enum class ClientStart : std::uint8_t { together, staggered };
  ClientStart client_start = ClientStart::together;
  static constexpr const char* name(ClientStart s) noexcept { return s == ClientStart::together ? "together" : "staggered"; }

  bool aggregated = true, disaggregated = true;
  std::vector<std::uint32_t> token_budgets{2048, 8192};  // max_batch_tokens of an aggregated worker
  std::uint32_t max_batch = 512;   // batch cap per worker (per DP group for a DP-attention arch)
  std::uint32_t max_workers = 8;   // prefill or decode workers in one disaggregated unit, at most
  std::uint32_t max_tp = 0;        // 0: gpus_per_node
  // KV-parallel degrees tried for decode workers of a kv_parallel() family (attention
  // groups of hp × tp GPUs within a node; a MoE worker holds ep / (hp × tp) of them);
  // empty: 2, 4, 8, ... as far as they fit. hp 1 is always tried.
  std::vector<std::uint32_t> hps;
  // Non-empty: the only worker layouts tried (a deployment pinned to a measured one), so
  // nothing else is simulated.
  std::vector<Parallel> workers;

  // What a closed loop's warm-up leaves before the measured requests. `first_round`: the
  // clients' first requests run and are dropped, and the measured ones follow as the loop
  // goes on (the steady state a service sees). `drained`: as aiperf runs a benchmark, the
  // warm-up phase ends before the profiling phase sends anything (aiperf 0.1.1, db4f6397,
  // aiperf/timing/credit_issuing_strategy.py: phases run in order, each waiting for all its
  // requests to return), so the measured requests start from an idle engine, every client
  // at once, and the first of them queue behind each other's prompts. A drained warm-up
  // leaves nothing a measured request uses (random prompts share no prefix), so it is not
  // simulated.
  enum class Warmup : std::uint8_t { first_round, drained };
  Warmup warmup = Warmup::first_round;
  static constexpr const char* name(Warmup w) noexcept { return w == Warmup::drained ? "drained" : "first-round"; }

  // Requests each simulated unit runs. Closed loop: max(min_requests, rounds × clients)
  // measured, after the clients' first requests under Warmup::first_round. Open loop:
  // `requests` measured after requests / 10 of warm-up.
  std::uint32_t rounds = 3, min_requests = 16, requests = 500;
  // A benchmark's run as the serving benchmarks measure one: aiconfigurator's generator runs
  // aiperf with --warmup-request-count 2 × C, then --num-requests 20 × C
  // (generator/config/backend_templates/benchmark/bench_run.sh.j2 at 095f58a, the silicon
  // sample's commit; 50 × C before 2026-04-01): a drained warm-up and 20 rounds.
  static constexpr Warmup benchmark_warmup = Warmup::drained;
  static constexpr std::uint32_t benchmark_rounds = 20;
  std::uint64_t seed = 1;
  // Below 1: each request's input and output lengths drawn uniformly from ⌊ratio · L⌋ .. L,
  // as InferenceX's benchmark_serving.py `--random-range-ratio` samples them (Load::min_length_ratio).
  double min_length_ratio = 1;
  // The engine's scheduling (serve/framework.hpp gives a framework's): every worker's
  // ServerConfig but its token budget and batch cap, which are the candidate's.
  ServerConfig engine;

  ServerConfig server(std::uint32_t token_budget, std::uint32_t batch) const noexcept {
    ServerConfig c = engine;
    c.max_batch_tokens = token_budget;
    c.max_seqs = batch;
    return c;
  }
};

}  // namespace costdsl::serve
