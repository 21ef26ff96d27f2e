// costdsl simulate: one pinned deployment under one load, the primitive `costdsl plan`
// searches over. Aggregated (--tp/--ep/--dp/--hp, a batch cap, a token budget, replicas)
// or disaggregated (prefill and decode workers, each with its parallelism, batch cap and
// count); a closed loop of clients (--concurrency), Poisson arrivals (--rate) or a trace;
// TTFT, TPOT and request latency (mean, p50, p90, p99), tokens/s and tokens/s/GPU. The
// candidate is simulated by serve::UnitSimulator, as each of plan's, so a pinned run gives
// the figures of plan's row for the same layout and load.
#include <algorithm>
#include <cstdint>
#include <iostream>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "cli_common.hpp"
#include "commands.hpp"
#include "output.hpp"
#include "costdsl/error.hpp"
#include "costdsl/serve/model_source.hpp"
#include "costdsl/serve/trace.hpp"
#include "costdsl/serve/unit_simulator.hpp"
#include "model.hpp"
#include "simulate_report.hpp"

namespace costdsl::cli {

namespace {

// What one unit is asked to simulate at most: every request is held in memory.
constexpr std::uint64_t max_clients = 1'000'000, max_requests = 10'000'000;

// One worker as the flags pin it: its model options and the flags that set them, for
// the messages ("--prefill-tp 3 --prefill-ep 8: ...").
struct PinnedWorker {
  ModelOptions options;
  std::string flags;
  std::uint64_t kv_need = 0;  // KV tokens one request needs on it
  std::string need_what;      // how kv_need was reckoned, for the message
};

// The pinned worker checked as `eval` checks its layout (the arch's own rule), then sized
// for KV: an error names the flags, their values and the rule broken.
serve::WorkerOption pin(const PinnedWorker& w, serve::ModelSource& source, serve::UnitSimulator& units,
                        const GpuSpec& gpu, const serve::PlanSpec& spec) {
  try {
    check_model(w.options);
  } catch (const Error& e) {
    throw InputError(fmt::format("{}: {}", w.flags, e.what()));
  }
  serve::Parallel p{w.options.tp, source.expert_parallel() ? w.options.expert_parallel() : 1, w.options.hp};
  p.moe_tp = w.options.moe_tp;
  std::string why;
  const std::optional<serve::WorkerOption> o = units.option(p, &why);
  if (!o) throw InputError(fmt::format("{}: {}", w.flags, why));
  if (o->kv_tokens_per_group >= o->request_tokens(w.kv_need)) return *o;
  const double usable = gpu.hbm_capacity * (1 - spec.engine.reserve_fraction);
  if (o->f.weight_bytes_per_gpu >= usable)
    throw InputError(fmt::format(
        "{}: the model does not fit: {:.1f} GB of weights per GPU on {} GPUs; a {} has {:.1f} GB, {:.1f} GB after the "
        "{:.0f}% reserve (more GPUs per worker: raise the parallelism)",
        w.flags, o->f.weight_bytes_per_gpu / 1e9, o->f.gpus, gpu.name, gpu.hbm_capacity / 1e9, usable / 1e9,
        spec.engine.reserve_fraction * 100));
  throw InputError(fmt::format("{}: no KV room for one request: {:.1f} GB of weights per GPU leave {} tokens of KV "
                               "per {}; one request needs {} ({})",
                               w.flags, o->f.weight_bytes_per_gpu / 1e9, o->kv_tokens_per_group,
                               o->f.kv_groups > 1 ? "DP group" : "worker", o->request_tokens(w.kv_need),
                               o->state_tokens() > 0 ? fmt::format("{} and a recurrent state of {} tokens' worth",
                                                                   w.need_what, o->state_tokens())
                                                     : w.need_what));
}

// The flags that pin a worker's layout, as the user gave them.
std::string layout_flags(const char* prefix, const ModelOptions& o, bool hp_taken) {
  std::string s = fmt::format("--{}tp {}", prefix, o.tp);
  if (o.ep != 0) s += fmt::format(" --{}ep {}", prefix, o.ep);
  if (o.dp != 0) s += fmt::format(" --{}dp {}", prefix, o.dp);
  if (hp_taken && o.hp != 1) s += fmt::format(" --{}hp {}", prefix, o.hp);
  if (o.moe_tp != 1) s += fmt::format(" --{}moe-tp {}", prefix, o.moe_tp);
  return s;
}

// Where one worker's kernel times come from: its leaves in one representative
// iteration (a prompt chunk and, where it decodes, a batch of decodes half-way through
// the outputs), as `eval` would print them.
void add_kernel_sources(KernelSource& ks, const ModelOptions& o, const Timing& timing, std::uint32_t prompt,
                        std::uint32_t prefix, std::uint32_t decodes, std::uint32_t kv) {
  const std::unique_ptr<Model> m = open_model(o, timing);
  std::vector<Metrics> row(m->manifest().slots.size());
  const std::vector<ops::PrefillChunk> chunks = prompt > 0 ? std::vector<ops::PrefillChunk>{{prefix, prompt}}
                                                           : std::vector<ops::PrefillChunk>{};
  const std::vector<std::uint32_t> decode_kv(decodes, kv);
  m->evaluate({chunks, decode_kv}, row);
  for (const Metrics& leaf : row) ks.add(leaf);
}

// The worker's token budget: --token-budget per DP group, for all of them.
std::uint32_t worker_budget(std::uint32_t per_group, const serve::WorkerOption& w) {
  const std::uint64_t b = std::uint64_t{per_group} * w.f.kv_groups;
  if (b > 0xffffffffull)
    throw InputError(fmt::format("--token-budget {} × {} DP groups overflows 32 bits", per_group, w.f.kv_groups));
  return static_cast<std::uint32_t>(b);
}

// The decodes a worker runs at once: its batch cap, or fewer where its KV holds fewer.
std::uint32_t typical_batch(std::uint32_t batch, const serve::WorkerOption& w, std::uint64_t kv_need) {
  const std::uint64_t fit = w.kv_tokens() / std::max<std::uint64_t>(w.request_tokens(kv_need), 1);
  return static_cast<std::uint32_t>(std::clamp<std::uint64_t>(fit, 1, batch));
}

}  // namespace

void add_simulate_command(CLI::App& app) {
  struct State {
    ModelOptions model;  // the aggregated worker, or each decode worker
    TimingOptions timing;
    EngineOptions engine;
    std::string mode = "agg";
    std::uint32_t replicas = 1, batch = 0, token_budget = 8192;
    std::uint32_t prefill_tp = 1, prefill_ep = 0, prefill_dp = 0, prefill_moe_tp = 1, prefill_workers = 0, decode_workers = 0,
                  prefill_batch = 0;
    std::uint32_t isl = 0, osl = 0, prefix = 0, concurrency = 0, requests = 500;
    double rate = 0;
    std::uint64_t seed = 1;
    std::string trace;
    serve::PlanSpec::ClientStart client_start = serve::PlanSpec::ClientStart::together;
    // A closed loop as the serving benchmarks measure one.
    serve::PlanSpec::Warmup warmup = serve::PlanSpec::benchmark_warmup;
    std::uint32_t rounds = serve::PlanSpec::benchmark_rounds;
    double min_length_ratio = 1;
    bool json = false;
  };
  auto st = std::make_shared<State>();
  auto* cmd = app.add_subcommand(
      "simulate",
      "Simulate one pinned deployment (aggregated or disaggregated) under one load: TTFT, TPOT, request latency, "
      "tokens/s and tokens/s/GPU");
  // The model and the (decode) worker's layout: the flags every arch command takes.
  add_model_options(*cmd, st->model);
  st->timing.add(*cmd);
  cmd->add_option("--mode", st->mode,
                  "agg: replicas of one worker; disagg: prefill workers hand each request's KV to decode workers "
                  "(--tp/--ep/--dp/--hp are then the decode workers')")
      ->check(CLI::IsMember({"agg", "disagg"}))
      ->capture_default_str();
  cmd->add_option("--batch", st->batch,
                  "batch cap (running requests) of the aggregated worker or of each decode worker, over all its DP "
                  "groups, as plan's batch column")
      ->required()
      ->check(positive);
  cmd->add_option("--token-budget", st->token_budget,
                  "new tokens per iteration per DP group, of the aggregated worker or of each prefill worker "
                  "(default: the framework's; ideal: 8192)")
      ->check(positive);
  st->engine.add(*cmd);
  cmd->add_option("--replicas", st->replicas, "copies of the deployment unit (each simulated alike)")
      ->check(positive)
      ->capture_default_str();
  cmd->add_option("--prefill-workers", st->prefill_workers, "disagg: prefill workers per unit")->check(positive);
  cmd->add_option("--decode-workers", st->decode_workers, "disagg: decode workers per unit")->check(positive);
  cmd->add_option("--prefill-tp", st->prefill_tp, "disagg: each prefill worker's tensor-parallel degree")
      ->check(positive)
      ->capture_default_str();
  cmd->add_option("--prefill-ep", st->prefill_ep, "disagg, MoE archs: each prefill worker's expert-parallel degree")
      ->check(positive);
  cmd->add_option("--prefill-dp", st->prefill_dp, "disagg, MoE archs: each prefill worker's DP attention groups")
      ->check(positive);
  cmd->add_option("--prefill-moe-tp", st->prefill_moe_tp,
                  "disagg, MoE archs: each prefill worker's --moe-tp (experts split both ways, one attention group)")
      ->check(positive)
      ->capture_default_str();
  cmd->add_option("--prefill-batch", st->prefill_batch,
                  "disagg: each prefill worker's batch cap (default: 512 per DP group, as plan's)")
      ->check(positive);
  cmd->add_option("--isl", st->isl, "input tokens per request")->check(positive);
  cmd->add_option("--osl", st->osl, "output tokens per request (at least 2)")->check(positive);
  cmd->add_option("--prefix", st->prefix, "leading input tokens already in a prefix cache")
      ->check(non_negative)
      ->capture_default_str();
  auto* trace = cmd->add_option("--trace", st->trace,
                                "requests from a CSV trace (arrival_s,input_tokens,output_tokens) instead of "
                                "--isl/--osl and a load; dealt round-robin over the replicas")
                    ->check(CLI::ExistingFile);
  auto* rate = cmd->add_option("--rate", st->rate, "Poisson arrivals, requests/s over the whole deployment")
                   ->check(positive_number)
                   ->excludes(trace);
  cmd->add_option("--concurrency", st->concurrency,
                      "requests in flight over the whole deployment, a closed loop (default: the batch cap × decode "
                      "workers × replicas)")
          ->check(positive)
          ->excludes(rate)
          ->excludes(trace);
  add_client_start_option(*cmd, st->client_start)->excludes(rate)->excludes(trace);
  const ClosedLoopOptions loop = add_closed_loop_options(*cmd, st->warmup, st->rounds);
  add_length_ratio_option(*cmd, st->min_length_ratio)->excludes(trace);
  loop.warmup->excludes(rate)->excludes(trace);
  loop.rounds->excludes(rate)->excludes(trace);
  cmd->add_option("--requests", st->requests, "--rate: requests measured per replica")
      ->check(positive)
      ->capture_default_str()
      ->needs(rate);
  cmd->add_option("--seed", st->seed, "--rate: the arrival stream's seed")->capture_default_str();
  cmd->add_flag("--json", st->json, "print the deployment, the load and the figures as JSON");

  cmd->callback([st, cmd] {
    const bool disagg = st->mode == "disagg";
    for (const char* flag : {"--prefill-workers", "--decode-workers", "--prefill-tp", "--prefill-ep", "--prefill-dp",
                             "--prefill-moe-tp", "--prefill-batch"})
      if (!disagg && cmd->count(flag) > 0)
        throw InputError(fmt::format("{}: a disaggregated deployment's flag; give --mode disagg", flag));
    if (disagg && st->prefill_workers == 0)
      throw InputError("--prefill-workers: --mode disagg needs the number of prefill workers per unit (at least 1)");
    if (disagg && st->decode_workers == 0)
      throw InputError("--decode-workers: --mode disagg needs the number of decode workers per unit (at least 1)");
    // Flags of ModelOptions the serving engine's model source does not take: refused
    // rather than silently dropped (open_model_source takes the config, routing and hop_b).
    if (st->model.kv_replicate)
      throw InputError("--kv-replicate: the serving engine's model source has no KV-head replication; split the KV "
                       "with --hp instead");
    if (st->requests > max_requests)
      throw InputError(fmt::format("--requests {}: at most {} measured requests per replica", st->requests,
                                   max_requests));
    if (!disagg && st->model.hp > 1)
      throw InputError(fmt::format("--hp {}: KV-parallel attention is decode-side only (an iteration with a prompt "
                                   "under hp > 1 is not modelled); use --mode disagg, where --hp is the decode "
                                   "workers'", st->model.hp));

    auto [hf, family] = st->model.resolve();
    const Timing timing = st->timing.make(st->engine.framework);
    serve::PlanSpec spec;
    spec.gpus_per_node = static_cast<std::uint32_t>(std::max(timing.gpu().gpus_per_node, 1));
    spec.seed = st->seed;
    spec.requests = st->requests;
    spec.client_start = st->client_start;
    spec.warmup = st->warmup;
    spec.rounds = st->rounds;
    spec.min_length_ratio = st->min_length_ratio;
    const serve::FrameworkDefaults engine = st->engine.apply(spec, timing.gpu());
    if (cmd->count("--token-budget") == 0) st->token_budget = engine.server.max_batch_tokens;
    const std::uint64_t context = hf.has("max_position_embeddings") ? hf.dim("max_position_embeddings") : 0;

    std::vector<serve::Request> trace;
    std::uint64_t kv_need_total = 0, kv_need_prompt = 0;
    if (!st->trace.empty()) {
      for (const char* flag : {"--isl", "--osl", "--prefix"})
        if (cmd->count(flag) > 0)
          throw InputError(fmt::format("{}: a trace gives each request's lengths; drop it or --trace", flag));
      trace = serve::load_trace(st->trace);
      for (std::size_t i = 0; i < trace.size(); ++i) {
        const serve::Request& q = trace[i];
        const std::uint64_t total = std::uint64_t{q.input_tokens} + q.output_tokens;
        const std::string at = fmt::format("--trace {}: request {} (line {})", st->trace, i, i + 2);
        if (q.output_tokens < 2)
          throw InputError(fmt::format("{}: output_tokens {} must be at least 2 (TPOT is the time between output "
                                       "tokens)", at, q.output_tokens));
        if (context != 0 && total > context)
          throw InputError(fmt::format("{}: {} + {} tokens exceeds the model's context (max_position_embeddings {})",
                                       at, q.input_tokens, q.output_tokens, context));
        kv_need_total = std::max(kv_need_total, total);
        kv_need_prompt = std::max<std::uint64_t>(kv_need_prompt, q.input_tokens);
      }
      if (trace.size() < st->replicas)
        throw InputError(fmt::format("--replicas {}: the trace holds {} requests, fewer than one per replica",
                                     st->replicas, trace.size()));
      if (trace.size() > 0xfffffffeull) throw InputError("--trace: more than 2^32 - 2 requests");
    } else {
      if (st->isl == 0) throw InputError("--isl is required (input tokens per request), or give --trace");
      if (st->osl == 0) throw InputError("--osl is required (output tokens per request), or give --trace");
      if (st->osl < 2)
        throw InputError(fmt::format("--osl {}: must be at least 2 (TPOT is the time between output tokens)", st->osl));
      if (st->prefix >= st->isl)
        throw InputError(fmt::format("--prefix {} must be below --isl {} (the last prompt token is always computed)",
                                     st->prefix, st->isl));
      const std::uint64_t total = std::uint64_t{st->isl} + st->osl;
      if (context != 0 && total > context)
        throw InputError(fmt::format("--isl {} + --osl {} = {} tokens exceeds the model's context "
                                     "(max_position_embeddings {})",
                                     st->isl, st->osl, total, context));
      if (total > 0xffffffffull) throw InputError("--isl + --osl overflows 32 bits");
      spec.input_tokens = st->isl;
      spec.output_tokens = st->osl;
      spec.cached_tokens = st->prefix;
      kv_need_total = total;
      kv_need_prompt = st->isl;
    }

    if (!spec.engine.chunked_prefill && trace.empty() && st->token_budget < st->isl - st->prefix)
      throw InputError(fmt::format("--token-budget {}: below the prompt's {} new tokens while chunked prefill is off "
                                   "({}); give --chunked-prefill on or a budget of at least {}",
                                   st->token_budget, st->isl - st->prefix,
                                   st->engine.chunked_prefill.empty() ? "--framework " + st->engine.framework
                                                                      : std::string("--chunked-prefill off"),
                                   st->isl - st->prefix));
    const std::unique_ptr<serve::ModelSource> source =
        open_model_source(hf, family, timing, ops::moe::Routing{st->model.routing_skew}, st->model.hop_b);
    serve::UnitSimulator units(*source, timing, spec);
    const std::string need_text =
        trace.empty() ? fmt::format("--isl {} + --osl {}", st->isl, st->osl) : "the trace's largest request";
    const PinnedWorker main{st->model, layout_flags("", st->model, true), units.kv_round(kv_need_total), need_text};
    const serve::WorkerOption worker = pin(main, *source, units, timing.gpu(), spec);

    serve::Candidate c;
    c.mode = disagg ? serve::Mode::disaggregated : serve::Mode::aggregated;
    c.batch = st->batch;
    c.replicas = st->replicas;
    c.decode_workers = disagg ? st->decode_workers : 1;
    SimulateContext ctx;
    ctx.model = st->model.arch.empty() ? st->model.model_config : st->model.arch;
    ctx.gpu = timing.gpu().name;
    ctx.quantization = hf.quantization();
    ctx.timing = st->timing.timing;
    ctx.engine = engine;
    ctx.expert_parallel = source->expert_parallel();
    ctx.trace = st->trace;
    ctx.trace_requests = trace.size();
    ctx.kv_tokens = worker.kv_tokens();
    ctx.state_tokens = worker.state_tokens();
    ctx.dp_groups = worker.f.kv_groups;

    // Kernel provenance at a typical request's lengths (a trace's first request).
    const std::uint32_t isl = trace.empty() ? st->isl : trace.front().input_tokens;
    const std::uint32_t osl = trace.empty() ? st->osl : trace.front().output_tokens;
    const std::uint32_t cached = trace.empty() ? st->prefix : 0;
    const std::uint32_t mid_kv = isl + osl / 2;
    std::optional<serve::WorkerOption> prefill;
    if (disagg) {
      PinnedWorker pw{st->model, "", units.kv_round(kv_need_prompt), ""};
      pw.options.tp = st->prefill_tp;
      pw.options.ep = st->prefill_ep;
      pw.options.dp = st->prefill_dp;
      pw.options.moe_tp = st->prefill_moe_tp;
      pw.options.hp = 1;  // KV-parallel attention is a decode-side degree
      pw.options.hop_b = false;
      pw.flags = layout_flags("prefill-", pw.options, false);
      pw.need_what = trace.empty() ? fmt::format("--isl {}", st->isl) : std::string("the trace's largest prompt");
      prefill = pin(pw, *source, units, timing.gpu(), spec);
      c.prefill_workers = st->prefill_workers;
      c.token_budget = worker_budget(st->token_budget, *prefill);
      c.prefill_batch = st->prefill_batch != 0 ? st->prefill_batch : units.prefill_batch(c, *prefill);
      ctx.prefill_kv_tokens = prefill->kv_tokens();
      ctx.prefill_state_tokens = prefill->state_tokens();
      add_kernel_sources(ctx.kernels, pw.options, timing, std::min(isl - cached, c.token_budget), cached, 0, 0);
      add_kernel_sources(ctx.kernels, st->model, timing, 0, 0, typical_batch(st->batch, worker, main.kv_need),
                         mid_kv);
    } else {
      c.token_budget = worker_budget(st->token_budget, worker);
      add_kernel_sources(ctx.kernels, st->model, timing, std::min(isl - cached, c.token_budget), cached,
                         std::max<std::uint32_t>(typical_batch(st->batch, worker, main.kv_need), 2) - 1, mid_kv);
    }

    // The load per unit: replicas are independent, so one unit is simulated for all.
    std::vector<serve::Request> unit_trace;
    if (!trace.empty()) {
      for (std::size_t i = 0; i < trace.size(); i += st->replicas) unit_trace.push_back(trace[i]);
    } else if (st->rate > 0) {
      spec.load = serve::PlanSpec::LoadMode::rate;
      spec.rate = st->rate;
    } else {
      spec.load = serve::PlanSpec::LoadMode::concurrency;
      const std::uint64_t clients =
          st->concurrency != 0 ? st->concurrency : std::uint64_t{st->batch} * c.decode_workers * st->replicas;
      if (clients % st->replicas != 0)
        throw InputError(fmt::format("--concurrency {} must be a multiple of --replicas {} (each replica serves an "
                                     "equal share of the clients)",
                                     clients, st->replicas));
      if (clients / st->replicas > max_clients)
        throw InputError(fmt::format("--concurrency {}: {} clients per replica, at most {} (a closed loop simulates 4 "
                                     "requests per client)",
                                     clients, clients / st->replicas, max_clients));
      spec.concurrency = static_cast<std::uint32_t>(clients);
      c.clients = static_cast<std::uint32_t>(clients / st->replicas);
    }
    const std::uint64_t unit_gpus = disagg ? std::uint64_t{c.prefill_workers} * prefill->f.gpus +
                                                 std::uint64_t{c.decode_workers} * worker.f.gpus
                                           : worker.f.gpus;
    if (unit_gpus * c.replicas > 65536)
      throw InputError(fmt::format("--replicas {}: the deployment would use {} GPUs, at most 65536 (as plan's --gpus)",
                                   c.replicas, unit_gpus * c.replicas));
    spec.gpus = static_cast<std::uint32_t>(unit_gpus * c.replicas);
    ctx.spec = spec;

    const serve::PlanRow row = units.run(c, worker, prefill ? &*prefill : nullptr, unit_trace);
    if (st->json) {
      cli::out() << simulate_json(ctx, row).dump(2) << '\n';
      return;
    }
    cli::out() << simulate_text(ctx, row);
  });
}

}  // namespace costdsl::cli
