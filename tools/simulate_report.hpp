#pragma once
// The reading of `costdsl simulate` (one pinned deployment under one load): a short
// aligned table in text, and JSON whose deployment and result keys are those of a plan
// candidate (plan_report.hpp's row_json), so that a pinned run and the search's row for
// the same layout can be compared key by key.
#include <cstdint>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli_common.hpp"
#include "costdsl/coverage.hpp"
#include "costdsl/quantization.hpp"
#include "costdsl/serve/plan_row.hpp"
#include "costdsl/serve/plan_spec.hpp"
#include "plan_report.hpp"

namespace costdsl::cli {

// Where the kernel times of a simulation came from: each leaf of one representative
// iteration per worker (a prompt and a batch of decodes) is measured (a profile table
// answered) or roofline (ANALYTIC: no table covers it on this GPU), as `eval` marks them.
struct KernelSource {
  // Leaves that did work, by where their time came from; uncovered: nothing answered
  // (--timing profile off the tables: NO_COVERAGE, timed 0).
  std::size_t measured = 0, roofline = 0, uncovered = 0;
  Coverage flags = Coverage::none;  // every leaf's flags ORed

  void add(Metrics leaf) {
    if (leaf.coverage == Coverage::none && leaf.time_s == 0) return;  // nothing to do this iteration
    flags |= leaf.coverage;
    ++(has(leaf.coverage, Coverage::no_coverage) ? uncovered
       : has(leaf.coverage, Coverage::analytic)  ? roofline
                                                 : measured);
  }
  const char* name() const noexcept {
    if (uncovered > 0) return "uncovered";
    return roofline == 0 ? "measured" : measured == 0 ? "roofline" : "mixed";
  }
  std::string text() const {
    // ANALYTIC is what "roofline" says; the other flags (EXTRAPOLATED, ...) are news.
    const Coverage shown = roofline == 0 || measured > 0
                               ? flags
                               : static_cast<Coverage>(static_cast<std::uint8_t>(flags) &
                                                       ~static_cast<std::uint8_t>(Coverage::analytic));
    const std::string flags_text = shown == Coverage::none ? std::string() : " [" + coverage_text(shown) + "]";
    if (uncovered > 0)
      return fmt::format("{} leaves measured, {} roofline, {} with no table and no roofline (timed 0){}", measured,
                         roofline, uncovered, flags_text);
    if (roofline == 0) return fmt::format("measured tables for all {} leaves{}", measured, flags_text);
    if (measured == 0) return fmt::format("roofline for all {} leaves (no measured table covers them){}", roofline,
                                          flags_text);
    return fmt::format("mixed: {} leaves measured, {} roofline{}", measured, roofline, flags_text);
  }
};

// What the report says besides the simulated row.
struct SimulateContext {
  std::string model;   // the arch name or config file
  Quantization quantization;  // as built: the checkpoint's, with --quant / --kv-dtype applied
  std::string gpu;     // canonical GPU name
  std::string timing;  // auto | profile | roofline
  bool expert_parallel = false;
  serve::PlanSpec spec;       // the requests and the load as given
  serve::FrameworkDefaults engine;  // the scheduler simulated (--framework and its flags)
  std::string trace;          // the trace file, when the load is one
  std::uint64_t trace_requests = 0;
  std::uint64_t kv_tokens = 0, prefill_kv_tokens = 0;  // per (decode / prefill) worker
  // What each request's fixed state (linear-attention layers) takes of that room, in KV
  // tokens (WorkerOption::state_tokens); 0 for a KV cache alone.
  std::uint64_t state_tokens = 0, prefill_state_tokens = 0;
  std::uint32_t dp_groups = 1;                         // of the (decode) worker: the token budget is per group
  KernelSource kernels;
};

inline const char* simulate_load_kind(const SimulateContext& ctx) {
  if (!ctx.trace.empty()) return "trace";
  return ctx.spec.load == serve::PlanSpec::LoadMode::rate ? "rate" : "concurrency";
}

inline std::string simulate_deployment_text(const SimulateContext& ctx, const serve::PlanRow& r) {
  const serve::Candidate& c = r.c;
  const bool ep = ctx.expert_parallel;
  const auto count = [](std::uint32_t n, const char* what) { return fmt::format("{} {}{}", n, what, n == 1 ? "" : "s"); };
  const std::string gpus =
      fmt::format("{} × {} = {}", count(c.replicas, "replica"), count(c.unit_gpus, "GPU"), count(c.gpus(), "GPU"));
  // The room is the pool's capacity; a request's recurrent state is part of its footprint there.
  const auto state = [](std::uint64_t tokens) {
    return tokens == 0 ? std::string() : fmt::format(" (each request's recurrent state takes {} of them)", tokens);
  };
  if (c.mode == serve::Mode::aggregated)
    return fmt::format("aggregated {}, {}; batch cap {}, token budget {}{}; KV room {} tokens per worker{}",
                       parallel_label(c.worker, ep), gpus, c.batch, c.token_budget,
                       ctx.dp_groups > 1 ? fmt::format(" ({} per DP group)", c.token_budget / ctx.dp_groups) : "",
                       ctx.kv_tokens, state(ctx.state_tokens));
  return fmt::format(
      "disaggregated {} × prefill {} (batch cap {}, token budget {}) + {} × decode {} (batch cap {}), {}; KV room {} "
      "tokens per prefill worker{}, {} per decode worker{}; KV hand-off {:.3f} ms",
      c.prefill_workers, parallel_label(c.prefill, ep), c.prefill_batch, c.token_budget, c.decode_workers,
      parallel_label(c.worker, ep), c.batch, gpus, ctx.prefill_kv_tokens, state(ctx.prefill_state_tokens),
      ctx.kv_tokens, state(ctx.state_tokens), c.transfer_s * 1e3);
}

inline std::string simulate_load_text(const SimulateContext& ctx, const serve::PlanRow& r) {
  const serve::PlanSpec& s = ctx.spec;
  const std::string lengths = fmt::format(
      "ISL {}{}, OSL {}{}", s.input_tokens, s.cached_tokens ? fmt::format(" ({} cached)", s.cached_tokens) : "",
      s.output_tokens,
      s.min_length_ratio < 1 ? fmt::format(", each drawn from {} × up, apart", s.min_length_ratio) : "");
  if (!ctx.trace.empty())
    return fmt::format("trace {} ({} requests, dealt round-robin over the replicas: {:.3g} requests/s per replica)",
                       ctx.trace, ctx.trace_requests, r.c.rate);
  if (s.load == serve::PlanSpec::LoadMode::rate)
    return fmt::format("Poisson arrivals, {:g} requests/s over the deployment ({:g} per replica, seed {}); {}", s.rate,
                       r.c.rate, s.seed, lengths);
  return fmt::format("closed loop, {} clients ({} per replica), {}; {}", r.c.clients * r.c.replicas, r.c.clients,
                     s.client_start == serve::PlanSpec::ClientStart::together
                         ? "starting together, as benchmarks send them"
                         : "staggered over about one request's latency",
                     lengths);
}

inline std::string simulate_text(const SimulateContext& ctx, const serve::PlanRow& r) {
  std::string out = fmt::format("simulate: {} ({}) on {} (timing {}; kernel times: {})\n", ctx.model,
                                ctx.quantization.text(), ctx.gpu, ctx.timing, ctx.kernels.text());
  out += fmt::format("deployment  {}\n", simulate_deployment_text(ctx, r));
  out += fmt::format("engine      {}\n", engine_text(ctx.engine));
  out += fmt::format("load        {}\n", simulate_load_text(ctx, r));
  const bool closed = ctx.trace.empty() && ctx.spec.load != serve::PlanSpec::LoadMode::rate;
  const std::string warmup =
      closed && ctx.spec.warmup == serve::PlanSpec::Warmup::drained
          ? std::string("from an idle engine, the clients' first requests included (the warm-up drained before "
                        "them, as aiperf runs a benchmark)")
          : fmt::format("after a warm-up of {} dropped ({})", r.r.warmup,
                        !ctx.trace.empty() ? "the trace's first tenth"
                        : closed           ? "the first round, one per client"
                                           : "a tenth of the measured");
  out += fmt::format("measured    {} requests per replica ({} finished) {}; {} iterations, {:.2f} s simulated{}\n",
                     r.r.measured, r.r.finished, warmup, r.r.iterations, r.r.sim_time_s,
                     r.r.replayed > 0 ? fmt::format(" ({} requests replayed from a settled cycle)", r.r.replayed)
                                      : std::string());
  out += "\n                  mean       p50       p90       p99\n";
  const auto line = [](const char* name, const serve::Percentiles& p, double scale, int decimals) {
    return fmt::format("{:<12}{:>10.{}f}{:>10.{}f}{:>10.{}f}{:>10.{}f}\n", name, p.mean * scale, decimals,
                       p.p50 * scale, decimals, p.p90 * scale, decimals, p.p99 * scale, decimals);
  };
  out += line("TTFT ms", r.r.ttft_s, 1e3, 1);
  out += line("TPOT ms", r.r.tpot_s, 1e3, 2);
  out += line("latency s", r.r.e2e_s, 1.0, 3);
  out += fmt::format("\ntokens/s {:.1f} over the deployment, {:.1f} per GPU, {:.1f} per user; {:.1f} requests in "
                     "flight\n",
                     r.tokens_per_s(), r.tokens_per_s_gpu(), r.tokens_per_s_user(), r.concurrency());
  return out;
}

// plan's candidate keys (row_json) less the SLA's, plus what a pinned run adds.
inline nlohmann::json simulate_json(const SimulateContext& ctx, const serve::PlanRow& r) {
  nlohmann::json j = row_json(r, ctx.expert_parallel);
  j.erase("status");
  j.erase("sla_ratio");
  j["model"] = ctx.model;
  j["quantization"] = {{"gemm", name(ctx.quantization.gemm_dtype)},
                       {"moe", ctx.quantization.expert_format()},
                       {"kv", name(ctx.quantization.kv_dtype)}};
  j["gpu"] = ctx.gpu;
  j["timing"] = ctx.timing;
  j["kernel_times"] = {{"source", ctx.kernels.name()},
                       {"measured_leaves", ctx.kernels.measured},
                       {"roofline_leaves", ctx.kernels.roofline},
                       {"uncovered_leaves", ctx.kernels.uncovered},
                       {"coverage", coverage_json(ctx.kernels.flags)}};
  j["kv_tokens"] = ctx.kv_tokens;
  if (ctx.state_tokens > 0) j["state_tokens_per_request"] = ctx.state_tokens;
  j["engine"] = engine_json(ctx.engine);
  j["warmup"] = r.r.warmup;
  j["replayed"] = r.r.replayed;
  j["simulated_s"] = r.r.sim_time_s;
  const serve::PlanSpec& s = ctx.spec;
  nlohmann::json load{{"kind", simulate_load_kind(ctx)}, {"seed", s.seed}};
  if (ctx.trace.empty()) {
    load["isl"] = s.input_tokens;
    load["osl"] = s.output_tokens;
    load["prefix"] = s.cached_tokens;
    if (s.min_length_ratio < 1) load["min_length_ratio"] = s.min_length_ratio;
  } else {
    load["trace"] = ctx.trace;
    load["trace_requests"] = ctx.trace_requests;
  }
  if (s.load == serve::PlanSpec::LoadMode::rate || !ctx.trace.empty()) {
    load["rate"] = ctx.trace.empty() ? s.rate : r.c.rate * r.c.replicas;
  } else {
    load["concurrency"] = r.c.clients * r.c.replicas;
    load["client_start"] = serve::PlanSpec::name(s.client_start);
    load["warmup"] = serve::PlanSpec::name(s.warmup);
    load["rounds"] = s.rounds;
  }
  j["load"] = load;
  if (r.c.mode == serve::Mode::disaggregated) {
    j["prefill"]["batch"] = r.c.prefill_batch;
    j["prefill"]["hp"] = r.c.prefill.hp;
    j["prefill"]["kv_tokens"] = ctx.prefill_kv_tokens;
    if (ctx.prefill_state_tokens > 0) j["prefill"]["state_tokens_per_request"] = ctx.prefill_state_tokens;
  }
  return j;
}

}  // namespace costdsl::cli
