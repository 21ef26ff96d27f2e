#pragma once
// The readings of a deployment search (serve::Planner): the text tables, the
// explanation when nothing meets the SLA, CSV, JSON and the Pareto picture's series.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "costdsl/serve/framework.hpp"
#include "costdsl/serve/plan_result.hpp"
#include "costdsl/serve/plan_spec.hpp"
#include "plan_svg.hpp"

namespace costdsl::cli {

// What the report says about the search besides its rows.
struct PlanContext {
  std::string model;  // the arch name or config file
  std::string gpu;    // canonical GPU name
  std::string timing;
  serve::FrameworkDefaults engine;  // the scheduler simulated (--framework and its flags)
  bool expert_parallel = false;
  serve::PlanSpec spec;
  std::size_t parallelisms = 0, parallelisms_tried = 0, jobs = 0;
};

// A MoE worker at ep 1 over tp > 1 GPUs TP-shards its experts (serve::Planner's TP-expert layouts).
inline bool tp_experts(const serve::Parallel& p, bool expert_parallel) {
  return expert_parallel && p.ep == 1 && p.tp > 1;
}

inline std::string parallel_label(const serve::Parallel& p, bool expert_parallel) {
  const std::string hp = p.hp > 1 ? fmt::format("hp{}", p.hp) : std::string();
  if (!expert_parallel) return fmt::format("tp{}{}", p.tp, hp);
  // One attention group whose experts are split tp ways (TensorRT-LLM's moe_tp_size).
  if (tp_experts(p, expert_parallel)) return fmt::format("tp{}{}moetp{}", p.tp, hp, p.tp);
  // DP groups of hp × tp GPUs fill the ep GPUs.
  return fmt::format("tp{}{}dp{}ep{}", p.tp, hp, p.ep / (p.tp * p.hp), p.ep);
}

// A worker's GPUs: a MoE worker's ep (its experts span them), the tp GPUs of one group
// under TP experts, hp × tp for a dense one.
inline std::uint32_t worker_gpus(const serve::Parallel& p, bool expert_parallel) {
  return expert_parallel && !tp_experts(p, expert_parallel) ? p.ep : p.tp * p.hp;
}

inline const char* mode_name(serve::Mode m) { return m == serve::Mode::aggregated ? "aggregated" : "disaggregated"; }
inline const char* status_name(serve::Status s) {
  switch (s) {
    case serve::Status::meets: return "meets";
    case serve::Status::misses: return "misses";
    case serve::Status::stopped_early: return "stopped_early";
  }
  return "?";
}

// "agg tp4 ×2, batch 32, budget 8192" / "disagg 1×tp4 + 2×tp2 ×1, batch 64".
inline std::string describe_row(const serve::PlanRow& r, bool ep) {
  const serve::Candidate& c = r.c;
  if (c.mode == serve::Mode::aggregated)
    return fmt::format("agg {} ×{}, batch {}, budget {}", parallel_label(c.worker, ep), c.replicas, c.batch,
                       c.token_budget);
  return fmt::format("disagg {}×{} + {}×{} ×{}, batch {}", c.prefill_workers, parallel_label(c.prefill, ep),
                     c.decode_workers, parallel_label(c.worker, ep), c.replicas, c.batch);
}

inline std::string sla_text(const serve::Sla& sla) {
  if (!sla.any()) return "none (every deployment counts)";
  std::vector<std::string> parts;
  if (sla.ttft_s < serve::Sla::none) parts.push_back(fmt::format("TTFT ≤ {:g} ms", sla.ttft_s * 1e3));
  if (sla.tpot_s < serve::Sla::none) parts.push_back(fmt::format("TPOT ≤ {:g} ms", sla.tpot_s * 1e3));
  if (sla.e2e_s < serve::Sla::none) parts.push_back(fmt::format("request latency ≤ {:g} ms", sla.e2e_s * 1e3));
  return fmt::format("p{}: {}", serve::percent(sla.quantile), fmt::join(parts, ", "));
}

// The engine a simulation ran, e.g. "vllm 0.19 (6241521) defaults: mixed batches, chunked
// prefill, KV block 16, 10% reserve, 1 ms front end" (the token budget is the deployment's).
inline std::string engine_text(const serve::FrameworkDefaults& d) {
  const serve::ServerConfig& s = d.server;
  const std::string who = d.framework == serve::Framework::ideal
                              ? std::string("ideal (costdsl's own engine)")
                              : fmt::format("{} {} defaults", serve::name(d.framework), d.version);
  const std::string graphs = s.cuda_graph_batches.empty()
                                 ? std::string()
                                 : fmt::format(", decode batches padded to {} CUDA-graph sizes up to {}",
                                               s.cuda_graph_batches.size(), s.cuda_graph_batches.back());
  const std::string waiting =
      s.batch_wait_iters == 0
          ? std::string()
          : fmt::format(", prompts beside decodes held up to {} iterations or until {:g}% of the budget",
                        s.batch_wait_iters, s.batch_wait_tokens_ratio * 100);
  const std::string recv =
      s.recv_interval > 1 ? fmt::format(", new requests received every {} decode loops", s.recv_interval) : std::string();
  const std::string stream =
      s.stream_interval > 1 ? fmt::format(", streamed every {} tokens", s.stream_interval) : std::string();
  const std::string eager =
      s.eager_launch_s == 0 ? std::string()
      : s.graph_prefill_tokens == 0
          ? fmt::format(", prompt iterations eager at {:g} us per launch", s.eager_launch_s * 1e6)
          : fmt::format(", prompt iterations above {} tokens eager at {:g} us per launch", s.graph_prefill_tokens,
                        s.eager_launch_s * 1e6);
  const std::string draft =
      s.draft_tokens == 0
          ? std::string()
          : fmt::format(", speculative decoding: {} draft tokens a step, acceptance {:g} ({:.3g} tokens a step)",
                        s.draft_tokens, fmt::join(s.draft_acceptance, "/"), 1 + s.accepted_drafts());
  return fmt::format("{}: {} batches, {} prefill, KV block {}, {:.3g}% reserve, {:g} ms front end{}{}{}{}{}{}{}{}", who,
                     serve::name(s.batching), s.chunked_prefill ? "chunked" : "whole-prompt", s.kv_block,
                     s.reserve_fraction * 100, s.frontend_s * 1e3,
                     s.overlap_scheduling ? ", batches formed one iteration ahead" : "",
                     s.lagged_first_token ? ", first token one iteration late" : "", graphs, waiting, recv, stream,
                     eager, draft);
}

inline nlohmann::json engine_json(const serve::FrameworkDefaults& d) {
  const serve::ServerConfig& s = d.server;
  nlohmann::json j = {{"framework", serve::name(d.framework)},
          {"version", d.version},
          {"batching", serve::name(s.batching)},
          {"chunked_prefill", s.chunked_prefill},
          {"kv_block", s.kv_block},
          {"reserve_fraction", s.reserve_fraction},
          {"frontend_ms", s.frontend_s * 1e3},
          {"lagged_first_token", s.lagged_first_token},
          {"overlap_scheduling", s.overlap_scheduling},
          {"cuda_graph_batches", s.cuda_graph_batches},
          {"batch_wait_iters", s.batch_wait_iters},
          {"batch_wait_tokens_ratio", s.batch_wait_tokens_ratio},
          {"recv_interval", s.recv_interval},
          {"stream_interval", s.stream_interval},
          {"eager_launch_us", s.eager_launch_s * 1e6},
          {"graph_prefill_tokens", s.graph_prefill_tokens}};
  if (s.draft_tokens > 0) {  // present only with speculative decoding on: older reports read the same
    j["draft_tokens"] = s.draft_tokens;
    j["draft_acceptance"] = s.draft_acceptance;
    j["tokens_per_step"] = 1 + s.accepted_drafts();
  }
  return j;
}

inline std::string load_text(const serve::PlanSpec& s) {
  const char* start = s.client_start == serve::PlanSpec::ClientStart::together
                          ? "clients start together, as benchmarks send them"
                          : "clients staggered over a request's latency";
  const std::string measured =
      fmt::format("{}max({}, {} × concurrency) requests measured",
                  s.warmup == serve::PlanSpec::Warmup::drained ? "a drained warm-up, then " : "a warm-up round, then ",
                  s.min_requests, s.rounds);
  switch (s.load) {
    case serve::PlanSpec::LoadMode::sweep:
      return fmt::format(
          "each deployment at concurrency = its batch cap per replica (a closed loop, {}: {})", start, measured);
    case serve::PlanSpec::LoadMode::rate:
      return fmt::format("Poisson arrivals, {:g} requests/s over the deployment, split evenly over its replicas "
                         "({} requests measured per replica after {} of warm-up, seed {})",
                         s.rate, s.requests, s.requests / 10, s.seed);
    case serve::PlanSpec::LoadMode::concurrency:
      return fmt::format(
          "{} requests in flight over the deployment (a closed loop, {}: {}), split evenly over its replicas",
          s.concurrency, start, measured);
  }
  return {};
}

inline std::string plan_header(const PlanContext& ctx, const serve::PlanResult& res) {
  const serve::PlanSpec& s = ctx.spec;
  std::string out = fmt::format(
      "plan: {} on {} × {} (timing {}); ISL {}{}, OSL {}{}\n", ctx.model, s.gpus, ctx.gpu, ctx.timing, s.input_tokens,
      s.cached_tokens ? fmt::format(" ({} cached)", s.cached_tokens) : "", s.output_tokens,
      s.min_length_ratio < 1 ? fmt::format(", each drawn from {} × up, apart", s.min_length_ratio) : "");
  out += fmt::format("SLA   {}\n", sla_text(s.sla));
  out += fmt::format("load  {}\n", load_text(s));
  out += fmt::format("engine {}\n", engine_text(ctx.engine));
  out += fmt::format("search {} worker parallelisms fit (of {} tried); {} deployments simulated ({} aggregated, {} "
                     "disaggregated) in {} jobs\n",
                     ctx.parallelisms, ctx.parallelisms_tried, res.rows.size(), res.count(serve::Mode::aggregated),
                     res.count(serve::Mode::disaggregated), ctx.jobs);
  return out;
}

inline std::string latency_cells(const serve::PlanRow& r) {
  return fmt::format("{:>7.1f} /{:>7.1f} /{:>7.1f}  {:>6.2f} /{:>6.2f} /{:>6.2f}  {:>6.2f} /{:>6.2f} /{:>6.2f}",
                     r.r.ttft_s.p50 * 1e3, r.r.ttft_s.p90 * 1e3, r.r.ttft_s.p99 * 1e3, r.r.tpot_s.p50 * 1e3,
                     r.r.tpot_s.p90 * 1e3, r.r.tpot_s.p99 * 1e3, r.r.e2e_s.p50, r.r.e2e_s.p90, r.r.e2e_s.p99);
}

inline std::string plan_table(const PlanContext& ctx, const serve::PlanResult& res, serve::Mode m, std::size_t k) {
  const bool ep = ctx.expert_parallel;
  const std::vector<std::size_t> top = res.top(m, k);
  std::string out = fmt::format("\n{}: {} of {} deployments meet the SLA; ", mode_name(m),
                                res.count(m, serve::Status::meets), res.count(m));
  out += fmt::format("the best {} by tokens/s/GPU\n", top.size());
  const std::string lat_head = "    TTFT ms p50 / p90 / p99    TPOT ms p50 / p90 / p99  latency s p50 / p90 / p99";
  if (m == serve::Mode::aggregated) {
    out += fmt::format("{:>3}  {:<12} {:>8} {:>11} {:>5} {:>6} {:>6} {:>11} {:>12} {:>13}{}\n", "#", "parallel",
                       "replicas", "gpus/worker", "gpus", "batch", "budget", "concurrency", "tokens/s/gpu",
                       "tokens/s/user", lat_head);
    for (std::size_t i = 0; i < top.size(); ++i) {
      const serve::PlanRow& r = res.rows[top[i]];
      out += fmt::format("{:>3}  {:<12} {:>8} {:>11} {:>5} {:>6} {:>6} {:>11.0f} {:>12.1f} {:>13.1f}  {}\n", i + 1,
                         parallel_label(r.c.worker, ep), r.c.replicas, r.c.unit_gpus, r.c.gpus(), r.c.batch,
                         r.c.token_budget, r.concurrency(), r.tokens_per_s_gpu(), r.tokens_per_s_user(),
                         latency_cells(r));
    }
  } else {
    // The decode column fits a KV-parallel MoE label (tp1hp16dp4ep64).
    out += fmt::format("{:>3}  {:<12} {:>2} {:<14} {:>2} {:>8} {:>11} {:>5} {:>6} {:>11} {:>12} {:>13}{}\n", "#",
                       "prefill", "xP", "decode", "yD", "replicas", "gpus/worker", "gpus", "batch", "concurrency",
                       "tokens/s/gpu", "tokens/s/user", lat_head);
    for (std::size_t i = 0; i < top.size(); ++i) {
      const serve::PlanRow& r = res.rows[top[i]];
      const std::uint32_t gp = worker_gpus(r.c.prefill, ep), gd = worker_gpus(r.c.worker, ep);
      out += fmt::format("{:>3}  {:<12} {:>2} {:<14} {:>2} {:>8} {:>11} {:>5} {:>6} {:>11.0f} {:>12.1f} {:>13.1f}  {}\n",
                         i + 1, parallel_label(r.c.prefill, ep), r.c.prefill_workers, parallel_label(r.c.worker, ep),
                         r.c.decode_workers, r.c.replicas, fmt::format("{}/{}", gp, gd), r.c.gpus(), r.c.batch,
                         r.concurrency(), r.tokens_per_s_gpu(), r.tokens_per_s_user(), latency_cells(r));
    }
  }
  return out;
}

// Why no deployment of mode m meets the SLA: each target, how many meet it and the
// lowest value reached; then the nearest deployments (smallest value / limit).
inline std::string nothing_fits(const PlanContext& ctx, const serve::PlanResult& res, serve::Mode m) {
  const serve::Sla& sla = ctx.spec.sla;
  const bool ep = ctx.expert_parallel;
  std::vector<std::size_t> rows, full;
  for (std::size_t i = 0; i < res.rows.size(); ++i)
    if (res.rows[i].c.mode == m) {
      rows.push_back(i);
      if (res.rows[i].status != serve::Status::stopped_early) full.push_back(i);
    }
  const std::size_t stopped = rows.size() - full.size();
  std::string out = fmt::format("\n{}: none of {} deployments meets the SLA", mode_name(m), rows.size());
  if (rows.empty()) return fmt::format("\n{}: no deployment of this mode fits on {} GPUs\n", mode_name(m), ctx.spec.gpus);
  out += stopped ? fmt::format(" ({} stopped early, once a miss was certain: their figures are partial)\n", stopped)
                 : "\n";
  const std::vector<std::size_t>& pool = full.empty() ? rows : full;
  const int q = serve::percent(sla.quantile);
  struct Target {
    const char* name;
    double limit;
    double scale;
    const char* unit;
    const serve::Percentiles serve::UnitResult::*field;
  };
  const Target targets[] = {{"TTFT", sla.ttft_s, 1e3, "ms", &serve::UnitResult::ttft_s},
                            {"TPOT", sla.tpot_s, 1e3, "ms", &serve::UnitResult::tpot_s},
                            {"request latency", sla.e2e_s, 1e3, "ms", &serve::UnitResult::e2e_s}};
  for (const Target& t : targets) {
    if (!(t.limit < serve::Sla::none)) continue;
    std::size_t met = 0, best = pool.front();
    for (const std::size_t i : pool) {
      const double v = (res.rows[i].r.*t.field).at(sla.quantile);
      if (v <= t.limit) ++met;
      if (v < (res.rows[best].r.*t.field).at(sla.quantile)) best = i;
    }
    const double lowest = (res.rows[best].r.*t.field).at(sla.quantile);
    if (met > 0) {
      out += fmt::format("  {} p{} ≤ {:g} {}: met by {} of them\n", t.name, q, t.limit * t.scale, t.unit, met);
    } else {
      out += fmt::format("  {} p{} ≤ {:g} {}: met by none; the lowest is {:.2f} {} ({})\n", t.name, q,
                         t.limit * t.scale, t.unit, lowest * t.scale, t.unit, describe_row(res.rows[best], ep));
    }
  }
  std::vector<std::size_t> near = pool;
  std::stable_sort(near.begin(), near.end(),
                   [&](std::size_t a, std::size_t b) { return res.rows[a].sla_ratio < res.rows[b].sla_ratio; });
  if (near.size() > 3) near.resize(3);
  out += "  nearest (largest percentile / limit first):\n";
  for (const std::size_t i : near) {
    const serve::PlanRow& r = res.rows[i];
    out += fmt::format("    {:.2f}×  {}: TTFT p{} {:.1f} ms, TPOT p{} {:.2f} ms, latency p{} {:.2f} s{}\n", r.sla_ratio,
                       describe_row(r, ep), q, r.r.ttft_s.at(sla.quantile) * 1e3, q, r.r.tpot_s.at(sla.quantile) * 1e3,
                       q, r.r.e2e_s.at(sla.quantile), r.status == serve::Status::stopped_early ? " (partial)" : "");
  }
  return out;
}

inline std::string plan_csv(const PlanContext& ctx, const serve::PlanResult& res) {
  const bool ep = ctx.expert_parallel;
  std::string out =
      "mode,prefill_parallel,prefill_workers,parallel,workers,replicas,unit_gpus,gpus,batch,token_budget,clients,"
      "rate_per_replica,concurrency,transfer_ms,status,sla_ratio,tokens_per_s_gpu,tokens_per_s_user,tokens_per_s,"
      "ttft_p50_ms,ttft_p90_ms,ttft_p99_ms,tpot_p50_ms,tpot_p90_ms,tpot_p99_ms,latency_p50_s,latency_p90_s,"
      "latency_p99_s,measured,finished,iterations\n";
  for (const serve::PlanRow& r : res.rows) {
    const bool dis = r.c.mode == serve::Mode::disaggregated;
    out += fmt::format(
        "{},{},{},{},{},{},{},{},{},{},{},{:.6g},{:.6g},{:.6f},{},{:.6f},{:.3f},{:.3f},{:.3f},{:.4f},{:.4f},{:.4f},"
        "{:.4f},{:.4f},{:.4f},{:.6f},{:.6f},{:.6f},{},{},{}\n",
        dis ? "disagg" : "agg", dis ? parallel_label(r.c.prefill, ep) : "", r.c.prefill_workers,
        parallel_label(r.c.worker, ep), r.c.decode_workers, r.c.replicas, r.c.unit_gpus, r.c.gpus(), r.c.batch,
        r.c.token_budget, r.c.clients, r.c.rate, r.concurrency(), r.c.transfer_s * 1e3, status_name(r.status),
        r.sla_ratio, r.tokens_per_s_gpu(), r.tokens_per_s_user(), r.tokens_per_s(), r.r.ttft_s.p50 * 1e3,
        r.r.ttft_s.p90 * 1e3, r.r.ttft_s.p99 * 1e3, r.r.tpot_s.p50 * 1e3, r.r.tpot_s.p90 * 1e3, r.r.tpot_s.p99 * 1e3,
        r.r.e2e_s.p50, r.r.e2e_s.p90, r.r.e2e_s.p99, r.r.measured, r.r.finished, r.r.iterations);
  }
  return out;
}

inline nlohmann::json percentiles_json(const serve::Percentiles& p, double scale) {
  return {{"p50", p.p50 * scale}, {"p90", p.p90 * scale}, {"p99", p.p99 * scale}, {"mean", p.mean * scale}};
}

inline nlohmann::json row_json(const serve::PlanRow& r, bool ep) {
  const bool dis = r.c.mode == serve::Mode::disaggregated;
  nlohmann::json j{{"mode", dis ? "disaggregated" : "aggregated"},
                   {"parallel", parallel_label(r.c.worker, ep)},
                   {"tp", r.c.worker.tp},
                   {"ep", r.c.worker.ep},
                   {"hp", r.c.worker.hp},
                   {"workers", r.c.decode_workers},
                   {"replicas", r.c.replicas},
                   {"unit_gpus", r.c.unit_gpus},
                   {"gpus", r.c.gpus()},
                   {"batch", r.c.batch},
                   {"token_budget", r.c.token_budget},
                   {"clients_per_replica", r.c.clients},
                   {"rate_per_replica", r.c.rate},
                   {"concurrency", r.concurrency()},
                   {"status", status_name(r.status)},
                   {"sla_ratio", r.sla_ratio},
                   {"tokens_per_s_gpu", r.tokens_per_s_gpu()},
                   {"tokens_per_s_user", r.tokens_per_s_user()},
                   {"tokens_per_s", r.tokens_per_s()},
                   {"ttft_ms", percentiles_json(r.r.ttft_s, 1e3)},
                   {"tpot_ms", percentiles_json(r.r.tpot_s, 1e3)},
                   {"latency_s", percentiles_json(r.r.e2e_s, 1.0)},
                   {"measured", r.r.measured},
                   {"finished", r.r.finished},
                   {"iterations", r.r.iterations}};
  if (dis) {
    j["prefill"] = {{"parallel", parallel_label(r.c.prefill, ep)},
                    {"tp", r.c.prefill.tp},
                    {"ep", r.c.prefill.ep},
                    {"workers", r.c.prefill_workers}};
    j["transfer_ms"] = r.c.transfer_s * 1e3;
  }
  return j;
}

inline nlohmann::json plan_json(const PlanContext& ctx, const serve::PlanResult& res, std::size_t k) {
  const serve::PlanSpec& s = ctx.spec;
  const auto limit = [](double v) { return v < serve::Sla::none ? nlohmann::json(v * 1e3) : nlohmann::json(nullptr); };
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& r : res.rows) rows.push_back(row_json(r, ctx.expert_parallel));
  nlohmann::json top = nlohmann::json::object(), pareto = nlohmann::json::object();
  for (const serve::Mode m : {serve::Mode::aggregated, serve::Mode::disaggregated}) {
    if ((m == serve::Mode::aggregated && !s.aggregated) || (m == serve::Mode::disaggregated && !s.disaggregated))
      continue;
    top[mode_name(m)] = res.top(m, k);
    pareto[mode_name(m)] = res.pareto(m);
  }
  const char* load = s.load == serve::PlanSpec::LoadMode::sweep  ? "sweep"
                     : s.load == serve::PlanSpec::LoadMode::rate ? "rate"
                                                                 : "concurrency";
  nlohmann::json out = {{"model", ctx.model},
          {"gpu", ctx.gpu},
          {"gpus", s.gpus},
          {"timing", ctx.timing},
          {"engine", engine_json(ctx.engine)},
          {"isl", s.input_tokens},
          {"osl", s.output_tokens},
          {"prefix", s.cached_tokens},
          {"sla",
           {{"percentile", serve::percent(s.sla.quantile)},
            {"ttft_ms", limit(s.sla.ttft_s)},
            {"tpot_ms", limit(s.sla.tpot_s)},
            {"request_latency_ms", limit(s.sla.e2e_s)}}},
          {"load",
           {{"kind", load},
            {"rate", s.rate},
            {"concurrency", s.concurrency},
            {"client_start", serve::PlanSpec::name(s.client_start)},
            {"warmup", serve::PlanSpec::name(s.warmup)},
            {"rounds", s.rounds},
            {"seed", s.seed}}},
          {"parallelisms", ctx.parallelisms},
          {"jobs", ctx.jobs},
          {"candidates", rows},
          {"top", top},
          {"pareto", pareto}};
  if (s.min_length_ratio < 1) out["load"]["min_length_ratio"] = s.min_length_ratio;
  return out;
}

inline std::vector<ParetoSeries> pareto_series(const PlanContext& ctx, const serve::PlanResult& res) {
  std::vector<ParetoSeries> out;
  for (const serve::Mode m : {serve::Mode::aggregated, serve::Mode::disaggregated}) {
    if ((m == serve::Mode::aggregated && !ctx.spec.aggregated) ||
        (m == serve::Mode::disaggregated && !ctx.spec.disaggregated))
      continue;
    ParetoSeries s;
    s.name = mode_name(m);
    const std::vector<std::size_t> front = res.pareto(m);
    const auto point = [&](const serve::PlanRow& r) {
      return ParetoPoint{r.tokens_per_s_user(), r.tokens_per_s_gpu(), describe_row(r, ctx.expert_parallel)};
    };
    for (const std::size_t i : front) s.frontier.push_back(point(res.rows[i]));
    for (std::size_t i = 0; i < res.rows.size(); ++i) {
      const serve::PlanRow& r = res.rows[i];
      if (r.c.mode != m || std::find(front.begin(), front.end(), i) != front.end()) continue;
      if (r.status == serve::Status::meets) s.meeting.push_back(point(r));
      if (r.status == serve::Status::misses) s.missing.push_back(point(r));
    }
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace costdsl::cli
