#pragma once
// Planner: the deployment search behind `costdsl plan`. Given a model family, a GPU and
// N of them, the requests and the SLA, it enumerates every deployment that fits and
// simulates each on the same request stream (serve::simulate_aggregated /
// simulate_disaggregated), one deployment unit per candidate.
//
// The search space, and how it is kept small enough to simulate:
// - workers: every parallelism the arch accepts within N GPUs: tp (TP stays inside a
//   node); for an expert-parallel arch every ep and attention tp dividing it (dp = ep/tp
//   attention groups); for a KV-parallel family also every hp > 1 with hp × tp GPUs in a
//   node, as decode workers only (hp is a decode-side degree: the disaggregated search).
//   One whose weights plus the HBM reserve leave no KV room for a request is dropped; if
//   none is left the input is impossible (an InputError with the bytes needed and
//   available).
// - aggregated: each worker × each token budget, replicated floor(N / gpus) times; the
//   batch cap runs over powers of two (× dp groups) up to what the KV cache holds.
// - disaggregated: x prefill workers + y decode workers per unit (x, y coprime, each at
//   most max_workers, the unit within N GPUs), replicated floor(N / unit) times. Workers
//   are screened first with one iteration each: a prefill worker whose prompt latency
//   and prefill tokens/s/GPU are both beaten by another with as many GPUs is dropped; a
//   decode worker runs a batch cap only if no other with as many GPUs decodes that batch
//   faster (same GPUs and batch: faster is better per user and per GPU alike). The
//   hand-off of a request's KV is timed by the p2p kernel (NVLink within a node, else
//   the network).
// - load: `sweep` runs every batch cap at concurrency = the cap per unit (each unit is
//   independent, so one is simulated for all replicas) and, with an SLA, stops raising
//   the cap at the first that misses it (a larger batch only queues more and runs longer
//   iterations); `rate` and `concurrency` split the deployment's load over its replicas.
// A job is one worker setup with its batch caps; jobs are independent, so they can be
// sharded over processes (run(shard, shards)) and their rows merged in job order.
// Each candidate is simulated by serve::UnitSimulator, which `costdsl simulate` runs
// for one pinned deployment.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <numeric>
#include <optional>
#include <string>
#include <vector>

#include "costdsl/error.hpp"
#include "costdsl/ops/attention/batch.hpp"
#include "costdsl/serve/any_model.hpp"
#include "costdsl/serve/detail/text.hpp"
#include "costdsl/serve/load.hpp"
#include "costdsl/serve/model_source.hpp"
#include "costdsl/serve/parallel.hpp"
#include "costdsl/serve/plan_result.hpp"
#include "costdsl/serve/plan_row.hpp"
#include "costdsl/serve/plan_spec.hpp"
#include "costdsl/serve/unit_simulator.hpp"
#include "costdsl/serve/worker_option.hpp"
#include "costdsl/timing.hpp"

namespace costdsl::serve {

class Planner {
 public:
  // One parallelism that fits, with its KV room.
  using WorkerOption = serve::WorkerOption;
  struct Job {
    Mode mode = Mode::aggregated;
    std::size_t worker = 0;   // aggregated: index into options()
    std::size_t prefill = 0;  // disaggregated: the prefill worker, index into options()
    std::uint32_t decode_gpus = 0;  // disaggregated: the decode workers' GPUs (decode_choices() picks each batch's)
    std::uint32_t x = 0, y = 1;
    std::uint32_t budget = 0;  // per group: aggregated workers' token budget
  };
  // Disaggregated decode workers: at each (GPUs, batch cap), the parallelism whose
  // decode iteration is fastest. Same GPUs and batch: its time per token is lower and
  // its tokens/s/GPU higher, so it beats the others on both counts.
  struct DecodeChoice {
    std::uint32_t gpus = 0, batch = 0;
    std::size_t option = 0;
  };

  // Checks the spec and enumerates the jobs; an impossible input is an InputError that
  // names the rule (and, for memory, the bytes needed and available).
  Planner(ModelSource& models, const Timing& timing, PlanSpec spec)
      : models_(models), timing_(timing), spec_(std::move(spec)), units_(models_, timing_, spec_) {
    check_spec();
    enumerate_workers();
    if (spec_.aggregated) add_aggregated_jobs();
    if (spec_.disaggregated) add_disaggregated_jobs();
  }

  // units_ reads spec_ by reference: a copy would read the original's.
  Planner(const Planner&) = delete;
  Planner& operator=(const Planner&) = delete;

  const PlanSpec& spec() const noexcept { return spec_; }
  const std::vector<WorkerOption>& options() const noexcept { return options_; }
  const std::vector<Job>& jobs() const noexcept { return jobs_; }
  const std::vector<DecodeChoice>& decode_choices() const noexcept { return decode_choices_; }
  std::size_t parallelisms_tried() const noexcept { return tried_; }

  // The jobs j with j % shards == shard, in order; progress(done, total) after each.
  std::vector<PlanRow> run(std::size_t shard = 0, std::size_t shards = 1,
                           const std::function<void(std::size_t, std::size_t)>& progress = {}) {
    std::vector<PlanRow> rows;
    const std::size_t mine = shards == 0 ? 0 : (jobs_.size() + shards - 1 - shard) / shards;
    std::size_t done = 0;
    for (std::size_t j = shard; j < jobs_.size(); j += shards) {
      const std::vector<PlanRow> r = run_job(j);
      rows.insert(rows.end(), r.begin(), r.end());
      if (progress) progress(++done, mine);
    }
    return rows;
  }

  // One job: its batch caps ascending (sweep: until the first that misses the SLA).
  std::vector<PlanRow> run_job(std::size_t j) {
    const Job& job = jobs_.at(j);
    std::vector<PlanRow> rows;
    Candidate c;
    c.mode = job.mode;
    // The steps of the sweep: a batch cap and the (decode) worker that runs it.
    struct Step {
      std::uint32_t batch;
      std::size_t option;
    };
    std::vector<Step> steps;
    const std::uint64_t footprint = kv_round(spec_.input_tokens + spec_.output_tokens);
    const auto fit_of = [&](const WorkerOption& w) {
      return w.kv_tokens_per_group / w.request_tokens(footprint) * w.f.kv_groups;
    };
    if (job.mode == Mode::aggregated) {
      const WorkerOption& w = options_[job.worker];
      c.decode_workers = 1;
      c.token_budget = job.budget * w.f.kv_groups;
      for (const std::uint32_t b : batch_caps(w, fit_of(w), c.token_budget)) steps.push_back({b, job.worker});
    } else {
      const WorkerOption& p = options_[job.prefill];
      c.prefill = p.p;
      c.prefill_workers = job.x;
      c.decode_workers = job.y;
      c.token_budget = prefill_budget() * p.f.kv_groups;
      for (const DecodeChoice& d : decode_choices_)
        if (d.gpus == job.decode_gpus) steps.push_back({d.batch, d.option});
    }
    if (steps.empty()) return rows;

    const auto simulate = [&](Candidate cand, std::size_t option) {
      PlanRow row = units_.run(cand, options_[option], job.mode == Mode::aggregated ? nullptr : &options_[job.prefill]);
      row.job = static_cast<std::uint32_t>(j);
      rows.push_back(row);
      return row.status == Status::meets;
    };

    switch (spec_.load) {
      case PlanSpec::LoadMode::sweep:
        for (const Step& s : steps) {
          c.batch = s.batch;
          c.clients = s.batch * c.decode_workers;
          if (!simulate(c, s.option) && spec_.sla.any()) break;
        }
        break;
      case PlanSpec::LoadMode::rate:
        for (const Step& s : steps) {
          c.batch = s.batch;
          simulate(c, s.option);
        }
        break;
      case PlanSpec::LoadMode::concurrency: {
        // The worker of the smallest step holding each worker's share (else the largest
        // step); as many replicas as fit that split the concurrency evenly.
        Step pick = steps.back();
        std::uint32_t unit_gpus = 0;
        for (const Step& s : steps) {
          const WorkerOption& w = options_[s.option];
          unit_gpus = job.mode == Mode::aggregated ? w.f.gpus : job.x * options_[job.prefill].f.gpus + job.y * w.f.gpus;
          std::uint32_t r = std::min(spec_.gpus / unit_gpus, spec_.concurrency);
          while (spec_.concurrency % r != 0) --r;
          if (s.batch * c.decode_workers >= spec_.concurrency / r) {
            pick = s;
            break;
          }
        }
        const WorkerOption& w = options_[pick.option];
        unit_gpus = job.mode == Mode::aggregated ? w.f.gpus : job.x * options_[job.prefill].f.gpus + job.y * w.f.gpus;
        std::uint32_t r = std::min(spec_.gpus / unit_gpus, spec_.concurrency);
        while (spec_.concurrency % r != 0) --r;
        c.replicas = r;
        c.clients = spec_.concurrency / r;
        const std::uint32_t per_worker = (c.clients + c.decode_workers - 1) / c.decode_workers;
        std::uint32_t b = static_cast<std::uint32_t>(std::min<std::uint64_t>(per_worker, fit_of(w)));
        if (job.mode == Mode::aggregated) b = std::min(b, c.token_budget);
        c.batch = std::max<std::uint32_t>(b, 1);
        simulate(c, pick.option);
        break;
      }
    }
    return rows;
  }

 private:
  void check_spec() {
    const PlanSpec& s = spec_;
    if (s.gpus == 0) throw InputError("--gpus 0: a deployment needs at least 1 GPU");
    if (s.gpus > 65536) throw InputError("--gpus " + std::to_string(s.gpus) + ": at most 65536");
    if (s.gpus_per_node == 0) throw InputError("gpus_per_node must be at least 1");
    if (s.input_tokens == 0) throw InputError("--isl 0: a request has at least 1 input token");
    if (s.output_tokens < 2)
      throw InputError("--osl " + std::to_string(s.output_tokens) +
                       ": must be at least 2 (TPOT is the time between output tokens)");
    if (s.cached_tokens >= s.input_tokens)
      throw InputError("--prefix " + std::to_string(s.cached_tokens) + " must be below --isl " +
                       std::to_string(s.input_tokens) + " (the last prompt token is always computed)");
    const std::uint64_t total = std::uint64_t{s.input_tokens} + s.output_tokens;
    if (s.context_tokens != 0 && total > s.context_tokens)
      throw InputError("--isl " + std::to_string(s.input_tokens) + " + --osl " + std::to_string(s.output_tokens) +
                       " = " + std::to_string(total) + " tokens exceeds the model's context (max_position_embeddings " +
                       std::to_string(s.context_tokens) + ")");
    if (total > 0xffffffffull) throw InputError("--isl + --osl overflows 32 bits");
    const auto limit = [](double v, const char* flag) {
      if (!(v > 0)) throw InputError(std::string(flag) + " " + detail::shortest(v * 1e3) + " ms must be positive");
    };
    limit(s.sla.ttft_s, "--ttft");
    limit(s.sla.tpot_s, "--tpot");
    limit(s.sla.e2e_s, "--request-latency");
    if (!s.aggregated && !s.disaggregated) throw InputError("the search needs a mode: aggregated, disaggregated or both");
    if (s.token_budgets.empty()) throw InputError("--token-budgets needs at least one budget");
    if (!s.engine.chunked_prefill)
      for (const std::uint32_t b : s.token_budgets)
        if (b < s.input_tokens - s.cached_tokens)
          throw InputError("--token-budgets " + std::to_string(b) + ": below the prompt's " +
                           std::to_string(s.input_tokens - s.cached_tokens) +
                           " new tokens, and chunked prefill is off (--chunked-prefill on, or a larger budget)");
    for (const std::uint32_t b : s.token_budgets)
      if (b == 0) throw InputError("--token-budgets: a budget must be at least 1 token");
    if (s.max_batch == 0) throw InputError("--max-batch must be at least 1");
    if (s.max_workers == 0) throw InputError("max_workers must be at least 1");
    if (s.rounds == 0 || s.min_requests == 0 || s.requests == 0)
      throw InputError("--requests must be at least 1");
    if (s.load == PlanSpec::LoadMode::rate && (!(s.rate > 0) || !std::isfinite(s.rate)))
      throw InputError("--rate " + detail::shortest(s.rate) + " must be a positive finite number of requests/s");
    if (s.load == PlanSpec::LoadMode::concurrency && s.concurrency == 0)
      throw InputError("--concurrency 0: at least 1 request must be in flight");
    if (!(s.engine.reserve_fraction >= 0 && s.engine.reserve_fraction < 1))
      throw InputError("reserve fraction " + detail::shortest(s.engine.reserve_fraction) + " must be in [0, 1)");
    if (s.engine.kv_block == 0) throw InputError("kv block must be at least 1 token");
    if (!(s.engine.frontend_s >= 0) || !std::isfinite(s.engine.frontend_s))
      throw InputError("--frontend-ms " + detail::shortest(s.engine.frontend_s * 1e3) + " must be finite and >= 0");
    for (const std::uint32_t hp : s.hps)
      if (hp == 0) throw InputError("--hp 0: a KV-parallel degree is at least 1");
    if (!s.hps.empty() && !models_.kv_parallel() &&
        std::any_of(s.hps.begin(), s.hps.end(), [](std::uint32_t hp) { return hp > 1; }))
      throw InputError("--hp: this model family has no KV-parallel attention grain, so the deployment search takes "
                       "hp 1 only");
  }

  // The hp degrees above 1 to try: the spec's, else the powers of two.
  std::vector<std::uint32_t> hp_degrees() const {
    std::vector<std::uint32_t> out;
    if (!spec_.hps.empty()) {
      for (const std::uint32_t hp : spec_.hps)
        if (hp > 1) out.push_back(hp);
    } else {
      for (std::uint32_t hp = 2; hp <= spec_.gpus; hp *= 2) out.push_back(hp);
    }
    return out;
  }

  std::uint64_t kv_round(std::uint64_t tokens) const noexcept { return units_.kv_round(tokens); }

  void enumerate_workers() {
    const GpuSpec& gpu = timing_.gpu();
    const std::uint32_t max_tp =
        std::min(spec_.gpus, spec_.max_tp != 0 ? spec_.max_tp : std::max<std::uint32_t>(spec_.gpus_per_node, 1));
    std::vector<Parallel> tries;
    if (models_.expert_parallel()) {
      for (std::uint32_t ep = 1; ep <= spec_.gpus; ++ep)
        for (std::uint32_t tp = 1; tp <= std::min(ep, max_tp); ++tp)
          if (ep % tp == 0) tries.push_back({tp, ep});
      // TP experts: ep 1 over tp > 1 GPUs, one attention group whose every expert is split
      // tp ways (the family's arch picks that grain for it; a family or model that cannot
      // split its experts so rejects the layout in facts()). After the EP layouts, so that
      // theirs keep their order.
      for (std::uint32_t tp = 2; tp <= max_tp; ++tp) tries.push_back({tp, 1});
    } else {
      for (std::uint32_t tp = 1; tp <= max_tp; ++tp) tries.push_back({tp, 1});
    }
    if (models_.kv_parallel()) {
      // Each attention group's hp × tp GPUs exchange partial outputs every layer: they share
      // a node. A MoE worker's ep GPUs hold ep / (hp × tp) such groups; the arch rejects
      // what its grain cannot run (MLA: tp 1).
      const std::uint32_t node = std::min(spec_.gpus, std::max<std::uint32_t>(spec_.gpus_per_node, 1));
      for (std::uint32_t tp = 1; tp <= max_tp; ++tp)
        for (const std::uint32_t hp : hp_degrees()) {
          const std::uint64_t group = std::uint64_t{hp} * tp;
          if (group > node) continue;
          if (!models_.expert_parallel()) {
            tries.push_back({tp, 1, hp});
            continue;
          }
          for (std::uint64_t ep = group; ep <= spec_.gpus; ep += group)
            tries.push_back({tp, static_cast<std::uint32_t>(ep), hp});
        }
    }
    if (!spec_.workers.empty())
      std::erase_if(tries, [&](const Parallel& p) {
        return std::find(spec_.workers.begin(), spec_.workers.end(), p) == spec_.workers.end();
      });
    // For the messages: option() sizes the KV.
    const double usable = gpu.hbm_capacity * (1 - spec_.engine.reserve_fraction);
    const std::uint64_t need_agg = kv_round(std::uint64_t{spec_.input_tokens} + spec_.output_tokens);
    std::optional<WorkerOption> leanest;  // the least weight per GPU, for the message when nothing fits
    std::string first_why;
    for (const Parallel p : tries) {
      std::string why;
      const std::optional<WorkerOption> opt = units_.option(p, &why);
      ++tried_;
      if (!opt) {
        if (first_why.empty()) first_why = why;
        continue;
      }
      const WorkerOption& o = *opt;
      if (!leanest || o.f.weight_bytes_per_gpu < leanest->f.weight_bytes_per_gpu ||
          (o.f.weight_bytes_per_gpu == leanest->f.weight_bytes_per_gpu &&
           o.kv_tokens_per_group > leanest->kv_tokens_per_group))
        leanest = o;
      if (o.kv_tokens_per_group >= o.request_tokens(need_agg)) options_.push_back(o);
    }
    if (!options_.empty()) return;
    if (!leanest)
      throw InputError("no parallelism of " + std::to_string(spec_.gpus) + " GPU(s) is valid for this model: " +
                       first_why);
    const WorkerFacts& f = leanest->f;
    const std::string where = std::to_string(spec_.gpus) + " x " + gpu.name;
    const std::string lean = "tp " + std::to_string(leanest->p.tp) +
                             (models_.expert_parallel() ? " ep " + std::to_string(leanest->p.ep) : "") +
                             (leanest->p.hp > 1 ? " hp " + std::to_string(leanest->p.hp) : "");
    const auto gpus_text = [](std::uint32_t n) { return std::to_string(n) + (n == 1 ? " GPU" : " GPUs"); };
    if (f.weight_bytes_per_gpu >= usable)
      throw InputError("the model does not fit on " + where + ": its leanest deployment (" + lean + ", " +
                       gpus_text(f.gpus) + ") needs " + detail::gigabytes(f.weight_bytes_per_gpu) +
                       " of weights per GPU; a " + gpu.name + " has " + detail::gigabytes(gpu.hbm_capacity) + ", " +
                       detail::gigabytes(usable) + " after the " +
                       detail::fixed(spec_.engine.reserve_fraction * 100, 0) +
                       "% reserve (" + detail::gigabytes(f.weight_bytes_per_gpu * f.gpus) + " of weights over " +
                       gpus_text(f.gpus) + "; " + gpus_text(spec_.gpus) + " have " +
                       detail::gigabytes(gpu.hbm_capacity * spec_.gpus) + ")");
    throw InputError("no deployment on " + where + " has KV room for one request: the leanest (" + lean + ") leaves " +
                     std::to_string(leanest->kv_tokens_per_group) + " tokens of KV per GPU (" +
                     detail::gigabytes(usable - f.weight_bytes_per_gpu) + " after " +
                     detail::gigabytes(f.weight_bytes_per_gpu) + " of weights), one request needs " +
                     std::to_string(leanest->request_tokens(need_agg)) + " (--isl " +
                     std::to_string(spec_.input_tokens) + " + --osl " + std::to_string(spec_.output_tokens) +
                     (leanest->state_tokens() > 0
                          ? " and its recurrent state, " + std::to_string(leanest->state_tokens()) + " tokens' worth"
                          : std::string()) +
                     ")");
  }

  void add_aggregated_jobs() {
    for (std::size_t i = 0; i < options_.size(); ++i)
      if (!options_[i].decode_only())
        for (const std::uint32_t b : spec_.token_budgets) jobs_.push_back({Mode::aggregated, i, 0, 0, 0, 1, b});
  }

  // The prefill workers' token budget (per group): the smallest of the budgets that
  // holds a whole prompt (one prompt per iteration, then the next), else the largest.
  std::uint32_t prefill_budget() const {
    const std::uint32_t prompt = spec_.input_tokens - spec_.cached_tokens;
    std::uint32_t best = 0;
    for (const std::uint32_t b : spec_.token_budgets)
      if (b >= prompt && (best == 0 || b < best)) best = b;
    if (best != 0) return best;
    return *std::max_element(spec_.token_budgets.begin(), spec_.token_budgets.end());
  }

  // Batch caps of a worker: dp × 1, 2, 4, ... up to dp × max_batch and what the KV
  // holds; an aggregated worker's also within its token budget (every decode needs a row).
  std::vector<std::uint32_t> batch_caps(const WorkerOption& w, std::uint64_t fit, std::uint32_t budget) const {
    std::vector<std::uint32_t> caps;
    const std::uint64_t top = std::min<std::uint64_t>(std::uint64_t{spec_.max_batch} * w.f.kv_groups, fit);
    for (std::uint64_t b = w.f.kv_groups; b <= top && (budget == 0 || b <= budget); b *= 2)
      caps.push_back(static_cast<std::uint32_t>(b));
    if (caps.empty() && fit > 0) caps.push_back(static_cast<std::uint32_t>(std::min<std::uint64_t>(
                                     {fit, w.f.kv_groups, budget == 0 ? fit : std::uint64_t{budget}})));
    return caps;
  }

  void screen_disaggregated() {
    const std::uint32_t prompt = spec_.input_tokens - spec_.cached_tokens;
    const std::uint64_t need_prefill = kv_round(spec_.input_tokens);
    const std::uint64_t need_decode = kv_round(std::uint64_t{spec_.input_tokens} + spec_.output_tokens);
    struct Point {
      std::size_t option;
      double latency_s, tokens_per_s_gpu;
    };
    std::vector<Point> pre;
    std::vector<double> decode_time;  // of each decode choice
    std::vector<ops::PrefillChunk> chunks;
    std::vector<std::uint32_t> kv;
    for (std::size_t i = 0; i < options_.size(); ++i) {
      const WorkerOption& o = options_[i];
      AnyModel& m = models_.model(o.p);
      if (!o.decode_only() && o.kv_tokens_per_group >= o.request_tokens(need_prefill)) {
        chunks.assign(1, {spec_.cached_tokens, prompt});
        const double one = m.iteration_s({chunks, kv});
        // A full iteration: the prefill budget of every group filled with prompts.
        const std::uint64_t budget = std::uint64_t{prefill_budget()} * o.f.kv_groups;
        chunks.clear();
        for (std::uint64_t left = budget; left > 0;) {
          const auto n = static_cast<std::uint32_t>(std::min<std::uint64_t>(left, prompt));
          chunks.push_back({spec_.cached_tokens, n});
          left -= n;
        }
        const double full = m.iteration_s({chunks, kv});
        pre.push_back({i, one, full > 0 ? double(budget) / full / o.f.gpus : 0.0});
      }
      chunks.clear();
      if (o.kv_tokens_per_group >= o.request_tokens(need_decode)) {
        const std::uint64_t fit = o.kv_tokens_per_group / o.request_tokens(need_decode) * o.f.kv_groups;
        for (const std::uint32_t b : batch_caps(o, fit, 0)) {
          kv.assign(b, spec_.input_tokens + spec_.output_tokens / 2);  // mid-way through the outputs
          const double t = m.iteration_s({chunks, kv});
          auto same = std::find_if(decode_choices_.begin(), decode_choices_.end(), [&](const DecodeChoice& d) {
            return d.gpus == o.f.gpus && d.batch == b;
          });
          if (same == decode_choices_.end()) {
            decode_choices_.push_back({o.f.gpus, b, i});
            decode_time.push_back(t);
          } else if (t < decode_time[static_cast<std::size_t>(same - decode_choices_.begin())]) {
            same->option = i;
            decode_time[static_cast<std::size_t>(same - decode_choices_.begin())] = t;
          }
        }
        kv.clear();
      }
    }
    std::vector<std::size_t> order(decode_choices_.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
      const DecodeChoice &x = decode_choices_[a], &y = decode_choices_[b];
      return x.gpus != y.gpus ? x.gpus < y.gpus : x.batch < y.batch;
    });
    std::vector<DecodeChoice> sorted;
    for (const std::size_t k : order) sorted.push_back(decode_choices_[k]);
    decode_choices_ = std::move(sorted);
    // Prefill workers: kept unless another with as many GPUs has a prompt latency as low
    // and prefill tokens/s/GPU as high (and one of them strictly better).
    for (const Point& x : pre) {
      bool beaten = false;
      for (const Point& y : pre)
        if (y.option != x.option && options_[y.option].f.gpus == options_[x.option].f.gpus &&
            y.latency_s <= x.latency_s && y.tokens_per_s_gpu >= x.tokens_per_s_gpu &&
            (y.latency_s < x.latency_s || y.tokens_per_s_gpu > x.tokens_per_s_gpu)) {
          beaten = true;
          break;
        }
      if (!beaten) options_[x.option].prefill = true;
    }
  }

  void add_disaggregated_jobs() {
    screen_disaggregated();
    std::vector<std::uint32_t> decode_gpus;
    for (const DecodeChoice& d : decode_choices_)
      if (decode_gpus.empty() || decode_gpus.back() != d.gpus) decode_gpus.push_back(d.gpus);
    for (std::size_t pi = 0; pi < options_.size(); ++pi) {
      if (!options_[pi].prefill) continue;
      const std::uint32_t gp = options_[pi].f.gpus;
      for (const std::uint32_t gd : decode_gpus)
        for (std::uint32_t x = 1; x <= spec_.max_workers; ++x)
          for (std::uint32_t y = 1; y <= spec_.max_workers; ++y)
            if (std::gcd(x, y) == 1 && std::uint64_t{x} * gp + std::uint64_t{y} * gd <= spec_.gpus)
              jobs_.push_back({Mode::disaggregated, 0, pi, gd, x, y, 0});
    }
  }

  ModelSource& models_;
  const Timing& timing_;
  PlanSpec spec_;
  UnitSimulator units_;  // after spec_, which it reads
  std::vector<WorkerOption> options_;
  std::vector<Job> jobs_;
  std::vector<DecodeChoice> decode_choices_;
  std::size_t tried_ = 0;
};

}  // namespace costdsl::serve
