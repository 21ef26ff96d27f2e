// costdsl plan: the deployment search (serve::Planner) for a model on N GPUs under an
// SLA: the best aggregated and disaggregated deployments as tables, the Pareto
// frontier as SVG, every simulated deployment as CSV / JSON, all of them as one HTML
// page. Under mpirun the search's jobs are shared out over the ranks and gathered on
// rank 0, whose output is the same, byte for byte, as a single process's.

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "cli_common.hpp"
#include "commands.hpp"
#include "output.hpp"
#include "costdsl/serve/model_source.hpp"
#include "costdsl/serve/planner.hpp"
#include "distributed.hpp"
#include "html_report.hpp"
#include "icicle_svg.hpp"
#include "model.hpp"
#include "plan_report.hpp"
#include "plan_svg.hpp"
#include "svg_writer.hpp"

namespace costdsl::cli {

namespace {

// Progress on stderr once a search has run for a second ($COSTDSL_PROGRESS_AFTER_S
// seconds: the tests set 0): redrawn in place on a terminal, else a line at most once a
// second.
class PlanProgress {
 public:
  explicit PlanProgress(std::string what) : what_(std::move(what)), tty_(err_is_terminal()) {
    if (const char* s = std::getenv("COSTDSL_PROGRESS_AFTER_S"); s != nullptr && *s != '\0') {
      char* end = nullptr;
      const double v = std::strtod(s, &end);
      if (end != s && *end == '\0' && v >= 0 && std::isfinite(v)) after_ = v;
    }
  }
  void operator()(std::size_t done, std::size_t total) {
    const double t = elapsed();
    if (t < after_ || (!tty_ && shown_ && t - last_ < 1.0 && done < total)) return;
    last_ = t;
    shown_ = true;
    const std::string line = fmt::format("plan: {}/{} jobs{}, {:.1f} s", done, total, what_, t);
    cli::err() << (tty_ ? "\r" + line + "   " : line + "\n") << std::flush;
  }
  void finish(std::size_t rows) {
    if (!shown_) return;
    cli::err() << (tty_ ? "\r" : "") << fmt::format("plan: {} deployments simulated in {:.1f} s{}\n", rows, elapsed(),
                                                   std::string(tty_ ? 10 : 0, ' '));
  }

 private:
  double elapsed() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }
  std::string what_;
  bool tty_;
  bool shown_ = false;
  double last_ = 0, after_ = 1.0;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

// Rows as bytes and back: every rank runs the same binary, so a row's bytes mean the same.
static_assert(std::is_trivially_copyable_v<serve::PlanRow>);
std::string rows_to_bytes(const std::vector<serve::PlanRow>& rows) {
  return std::string(reinterpret_cast<const char*>(rows.data()), rows.size() * sizeof(serve::PlanRow));
}
void rows_from_bytes(const std::string& bytes, std::vector<serve::PlanRow>& out) {
  if (bytes.size() % sizeof(serve::PlanRow) != 0) throw Error("plan: a rank sent a partial row");
  const std::size_t n = bytes.size() / sizeof(serve::PlanRow), at = out.size();
  out.resize(at + n);
  if (n > 0) std::memcpy(static_cast<void*>(out.data() + at), bytes.data(), bytes.size());
}

// The page's chosen deployment (html_report.hpp's script picks the same: the first of each
// mode's top list with the most tokens/s/GPU) as an icicle of one decode iteration of its
// (decode) worker: its batch at the KV length half-way through the outputs. Empty when no
// deployment meets the SLA.
std::string chosen_icicle(const PlanContext& ctx, const serve::PlanResult& res, const ModelOptions& model,
                          const Timing& timing, std::size_t k) {
  std::optional<std::size_t> best;
  for (const serve::Mode m : {serve::Mode::aggregated, serve::Mode::disaggregated}) {
    if ((m == serve::Mode::aggregated && !ctx.spec.aggregated) ||
        (m == serve::Mode::disaggregated && !ctx.spec.disaggregated))
      continue;
    const std::vector<std::size_t> top = res.top(m, k);
    if (!top.empty() && (!best || res.rows[top[0]].tokens_per_s_gpu() > res.rows[*best].tokens_per_s_gpu()))
      best = top[0];
  }
  if (!best) return {};
  const serve::PlanRow& r = res.rows[*best];
  ModelOptions o = model;
  o.tp = r.c.worker.tp;
  o.ep = ctx.expert_parallel ? r.c.worker.ep : 0;
  o.dp = 0;
  o.hp = r.c.worker.hp;
  o.moe_tp = r.c.worker.moe_tp;
  o.hop_b = model.hop_b && r.c.worker.hp > 1;
  const std::unique_ptr<Model> m = open_model(o, timing);
  const std::uint32_t kv = ctx.spec.input_tokens + ctx.spec.output_tokens / 2;
  const std::vector<std::uint32_t> decode_kv(std::max<std::uint32_t>(r.c.batch, 1), kv);
  const Manifest& man = m->manifest();
  std::vector<Metrics> row(man.slots.size()), nodes(man.tree.size());
  m->evaluate({{}, decode_kv}, row);
  man.tree.aggregate(row, nodes);
  IcicleOptions io;
  io.title = "One decode iteration of the chosen deployment";
  io.subtitle = fmt::format("#{}: {} decodes at KV {} on {} ({} worker)", *best, decode_kv.size(), kv, ctx.gpu,
                            r.c.mode == serve::Mode::aggregated ? "aggregated" : "decode");
  return icicle_svg(man, nodes, row, io);
}

}  // namespace

void add_plan_command(CLI::App& app) {
  struct State {
    ModelOptions model;
    TimingOptions timing;
    EngineOptions engine;
    std::uint32_t gpus = 0, isl = 0, osl = 0, prefix = 0, top = 5, concurrency = 0, percentile = 90;
    double ttft_ms = 0, tpot_ms = 0, latency_ms = 0, rate = 0;
    std::string mode = "both";
    serve::PlanSpec::ClientStart client_start = serve::PlanSpec::ClientStart::together;
    // The search compares deployments in their steady state: each client's first request
    // dropped, three rounds measured (PlanSpec's defaults); --warmup drained --rounds 20 is
    // a benchmark's run, as simulate and validate take it.
    serve::PlanSpec::Warmup warmup = serve::PlanSpec::Warmup::first_round;
    std::uint32_t rounds = serve::PlanSpec{}.rounds;
    double min_length_ratio = 1;
    std::vector<std::uint32_t> budgets{2048, 8192};
    std::vector<std::uint32_t> hps;
    std::uint32_t max_batch = 512, requests = 500;
    std::uint64_t seed = 1;
    bool json = false;
    std::string csv, svg, html;
  };
  auto st = std::make_shared<State>();
  auto* cmd = app.add_subcommand(
      "plan", "Search the deployments of a model on N GPUs (aggregated and disaggregated) meeting an SLA, simulated");
  add_model_source_options(*cmd, st->model);
  add_routing_skew_option(*cmd, st->model.routing_skew);
  st->timing.add(*cmd);
  cmd->add_option("--gpus", st->gpus, "GPUs available (a deployment uses at most this many)")
      ->required()
      ->check(positive);
  cmd->add_option("--isl", st->isl, "input tokens per request")->required()->check(positive);
  cmd->add_option("--osl", st->osl, "output tokens per request (at least 2)")->required()->check(positive);
  cmd->add_option("--prefix", st->prefix, "leading input tokens already in a prefix cache")
      ->check(non_negative)
      ->capture_default_str();
  cmd->add_option("--ttft", st->ttft_ms, "SLA: time to first token, ms")->check(positive_number);
  cmd->add_option("--tpot", st->tpot_ms, "SLA: time per output token after the first, ms")->check(positive_number);
  cmd->add_option("--request-latency", st->latency_ms, "SLA: request latency (arrival to last token), ms")
      ->check(positive_number);
  cmd->add_option("--percentile", st->percentile, "the percentile the SLA holds at: 50, 90 or 99")
      ->check(CLI::IsMember({50, 90, 99}))
      ->capture_default_str();
  cmd->add_option("--mode", st->mode, "agg | disagg | both")
      ->check(CLI::IsMember({"agg", "disagg", "both"}))
      ->capture_default_str();
  auto* rate = cmd->add_option("--rate", st->rate, "Poisson arrivals, requests/s over the whole deployment")
                   ->check(positive_number);
  cmd->add_option("--concurrency", st->concurrency, "requests in flight over the whole deployment (a closed loop)")
      ->check(positive)
      ->excludes(rate);
  add_client_start_option(*cmd, st->client_start);
  add_closed_loop_options(*cmd, st->warmup, st->rounds);
  add_length_ratio_option(*cmd, st->min_length_ratio);
  st->engine.add(*cmd);
  cmd->add_option("--top", st->top, "deployments listed per mode")->check(positive)->capture_default_str();
  cmd->add_option("--token-budgets", st->budgets,
                  "token budgets (new tokens per iteration, per DP group) to try, e.g. 2048,8192 (default: the "
                  "framework's; ideal: 2048,8192)")
      ->delimiter(',')
      ->check(positive);
  cmd->add_option("--hp", st->hps,
                  "KV-parallel degrees to try for decode workers (llama, qwen3, deepseek_v3), e.g. 1,2,4 (default: 1 "
                  "and every power of two that fits a node; 1: none)")
      ->delimiter(',')
      ->check(positive);
  cmd->add_flag("--hop-b", st->model.hop_b,
                "KV-parallel decode workers (hp > 1): overlap each batch slice's HP all-to-all with the next slice's "
                "attention (Helix HOP-B)");
  cmd->add_option("--max-batch", st->max_batch, "largest batch cap per worker (per DP group) to try")
      ->check(positive)
      ->capture_default_str();
  cmd->add_option("--requests", st->requests, "--rate: requests measured per replica")
      ->check(positive)
      ->capture_default_str();
  cmd->add_option("--seed", st->seed, "--rate: the arrival stream's seed")->capture_default_str();
  cmd->add_flag("--json", st->json, "print every deployment, the top ones and the frontiers as JSON");
  cmd->add_option("--csv", st->csv, "write every simulated deployment as CSV to FILE");
  cmd->add_option("--svg", st->svg, "write the Pareto frontier (tokens/s/GPU against tokens/s/user) as SVG to FILE");
  cmd->add_option("--html", st->html,
                  "write a self-contained HTML report to FILE: the frontier, every deployment as a sortable table, "
                  "the chosen one's request time");

  cmd->callback([st, cmd] {
    auto [hf, family] = st->model.resolve();
    const Timing timing = st->timing.make(st->engine.framework);
    serve::PlanSpec spec;
    const serve::FrameworkDefaults engine = st->engine.apply(spec, timing.gpu());
    if (cmd->count("--token-budgets") == 0 && engine.framework != serve::Framework::ideal)
      st->budgets = {engine.server.max_batch_tokens};
    spec.gpus = st->gpus;
    spec.gpus_per_node = static_cast<std::uint32_t>(std::max(timing.gpu().gpus_per_node, 1));
    spec.input_tokens = st->isl;
    spec.output_tokens = st->osl;
    spec.cached_tokens = st->prefix;
    spec.context_tokens = hf.has("max_position_embeddings") ? hf.dim("max_position_embeddings") : 0;
    if (st->ttft_ms > 0) spec.sla.ttft_s = st->ttft_ms * 1e-3;
    if (st->tpot_ms > 0) spec.sla.tpot_s = st->tpot_ms * 1e-3;
    if (st->latency_ms > 0) spec.sla.e2e_s = st->latency_ms * 1e-3;
    spec.sla.quantile = st->percentile == 50   ? serve::Quantile::p50
                        : st->percentile == 90 ? serve::Quantile::p90
                                               : serve::Quantile::p99;
    spec.aggregated = st->mode != "disagg";
    spec.disaggregated = st->mode != "agg";
    if (st->rate > 0) {
      spec.load = serve::PlanSpec::LoadMode::rate;
      spec.rate = st->rate;
    } else if (st->concurrency > 0) {
      spec.load = serve::PlanSpec::LoadMode::concurrency;
      spec.concurrency = st->concurrency;
    }
    spec.client_start = st->client_start;
    spec.warmup = st->warmup;
    spec.rounds = st->rounds;
    spec.min_length_ratio = st->min_length_ratio;
    spec.token_budgets = st->budgets;
    spec.hps = st->hps;
    spec.max_batch = st->max_batch;
    spec.requests = st->requests;
    spec.seed = st->seed;

    PlanContext ctx;
    ctx.model = st->model.arch.empty() ? st->model.model_config : st->model.arch;
    ctx.gpu = timing.gpu().name;
    ctx.timing = st->timing.timing;
    ctx.engine = engine;
    // The family made per parallelism in its own translation unit (tools/family.hpp).
    const std::unique_ptr<serve::ModelSource> source =
        open_model_source(hf, family, timing, ops::moe::Routing{st->model.routing_skew}, st->model.hop_b);
    serve::ModelSource& models = *source;
    serve::Planner planner(models, timing, spec);
    ctx.expert_parallel = models.expert_parallel();
    ctx.spec = planner.spec();
    ctx.parallelisms = planner.options().size();
    ctx.parallelisms_tried = planner.parallelisms_tried();
    ctx.jobs = planner.jobs().size();

    Distributed* dist = distributed_backend();
    const int rank = dist ? dist->rank() : 0, size = dist ? dist->size() : 1;
    PlanProgress progress(size > 1 ? fmt::format(" (rank 0's share of {} ranks)", size) : "");
    const auto report = [&](std::size_t done, std::size_t total) {
      if (rank == 0) progress(done, total);
    };
    serve::PlanResult res;
    res.rows = planner.run(static_cast<std::size_t>(rank), static_cast<std::size_t>(size), report);
    if (size > 1) {
      cli::err() << fmt::format("plan: rank {} of {} ran {} deployments\n", rank, size, res.rows.size());
      const std::vector<std::string> parts = dist->gather(rows_to_bytes(res.rows));
      if (rank != 0) return;
      res.rows.clear();
      for (const std::string& p : parts) rows_from_bytes(p, res.rows);
      std::stable_sort(res.rows.begin(), res.rows.end(),
                       [](const serve::PlanRow& a, const serve::PlanRow& b) { return a.job < b.job; });
    }
    progress.finish(res.rows.size());

    if (!st->csv.empty()) write_text_file(st->csv, plan_csv(ctx, res), "--csv");
    if (!st->svg.empty() || !st->html.empty()) {
      ParetoPlotOptions o;
      o.subtitle = fmt::format("{} on {} × {}; ISL {}, OSL {}; {} deployments simulated", ctx.model, spec.gpus,
                               ctx.gpu, spec.input_tokens, spec.output_tokens, res.rows.size());
      o.sla_line = "SLA " + sla_text(ctx.spec.sla);
      const std::string chart = pareto_svg(pareto_series(ctx, res), o);
      if (!st->svg.empty()) write_text_file(st->svg, chart, "--svg");
      if (!st->html.empty())
        write_text_file(st->html,
                        plan_html(fmt::format("costdsl plan: {} on {} × {}", ctx.model, spec.gpus, ctx.gpu),
                                  plan_header(ctx, res), chart, plan_json(ctx, res, st->top),
                                  chosen_icicle(ctx, res, st->model, timing, st->top)),
                        "--html");
    }
    if (st->json) {
      cli::out() << plan_json(ctx, res, st->top).dump(2) << '\n';
      return;
    }
    cli::out() << plan_header(ctx, res);
    for (const serve::Mode m : {serve::Mode::aggregated, serve::Mode::disaggregated}) {
      if ((m == serve::Mode::aggregated && !spec.aggregated) || (m == serve::Mode::disaggregated && !spec.disaggregated))
        continue;
      cli::out() << (res.count(m, serve::Status::meets) > 0 ? plan_table(ctx, res, m, st->top)
                                                           : nothing_fits(ctx, res, m));
    }
  });
}

}  // namespace costdsl::cli
