#pragma once
// UnitSimulator: one deployment candidate simulated under a PlanSpec's requests and load,
// the step the deployment search (serve::Planner) repeats for every candidate and
// `costdsl simulate` runs once for a pinned one. Both go through here so that a pinned
// deployment and the search's row for the same layout are the same simulation.
//
// What it decides for a candidate, besides running it:
// - a worker's KV room: HBM less the reserve less the weights, per DP group, in whole
//   KV blocks (option());
// - a disaggregated unit's KV hand-off: the p2p kernel moving the larger per-GPU share
//   of one prompt's KV (transfer_s());
// - the Load: a closed loop runs a warm-up round of `clients` requests (none where the
//   warm-up is drained before measuring), then max(min_requests, rounds × clients)
//   measured; Poisson arrivals run requests / 10 of
//   warm-up, then `requests` measured; a trace runs its first tenth as warm-up and
//   measures the rest. Staggered clients start over about one request's latency,
//   estimated from three iterations (latency_estimate_s()).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "costdsl/error.hpp"
#include "costdsl/kernel.hpp"
#include "costdsl/kernels/p2p.hpp"
#include "costdsl/ops/attention/batch.hpp"
#include "costdsl/serve/any_model.hpp"
#include "costdsl/serve/candidate.hpp"
#include "costdsl/serve/load.hpp"
#include "costdsl/serve/model_source.hpp"
#include "costdsl/serve/plan_row.hpp"
#include "costdsl/serve/plan_spec.hpp"
#include "costdsl/serve/request.hpp"
#include "costdsl/serve/simulate_unit.hpp"
#include "costdsl/serve/worker_option.hpp"
#include "costdsl/timing.hpp"

namespace costdsl::serve {

class UnitSimulator {
 public:
  // spec is held by reference: the caller keeps it alive (the Planner owns its copy).
  // prefill_models: where a disaggregated unit's prefill workers are built from when they
  // are timed apart from its decode workers (a role whose kernels differ: a serving recipe
  // that runs another experts' kernel per role); nullptr: `models`, as every plan candidate.
  UnitSimulator(ModelSource& models, const Timing& timing, const PlanSpec& spec, ModelSource* prefill_models = nullptr)
      : models_(models), prefill_models_(prefill_models != nullptr ? *prefill_models : models), timing_(timing),
        spec_(spec) {}

  // The worker at p with its KV room, or nullopt when the arch rejects p (`why` then
  // holds the arch's message). A worker whose weights fill the GPUs has 0 tokens of room.
  std::optional<WorkerOption> option(Parallel p, std::string* why = nullptr) const {
    const std::optional<WorkerFacts> f = models_.facts(p, why);
    if (!f) return std::nullopt;
    WorkerOption o{p, *f, 0, false};
    const double usable = timing_.gpu().hbm_capacity * (1 - spec_.engine.reserve_fraction);
    const double free = usable - f->weight_bytes_per_gpu;
    const std::uint32_t block = spec_.engine.kv_block;
    if (free > 0 && f->kv_bytes_per_token_per_gpu > 0)
      o.kv_tokens_per_group = static_cast<std::uint64_t>(free / f->kv_bytes_per_token_per_gpu) / block * block;
    return o;
  }

  // A request's KV footprint of `tokens`, in whole KV blocks.
  std::uint64_t kv_round(std::uint64_t tokens) const noexcept {
    return (tokens + spec_.engine.kv_block - 1) / spec_.engine.kv_block * spec_.engine.kv_block;
  }

  // One prompt of `input_tokens` handed from prefill worker p to decode worker d. Each
  // prefill GPU sends its shard of the prompt's KV (and of its fixed state, linear-attention
  // layers) while each decode GPU receives its own: the larger per-GPU share crosses one
  // link, all pairs at once.
  double transfer_s(const WorkerOption& p, const WorkerOption& d, std::uint32_t unit_gpus,
                    std::uint32_t input_tokens) const {
    const double per_gpu = std::max(p.f.kv_bytes_per_token_per_gpu, d.f.kv_bytes_per_token_per_gpu);
    const double state = std::max(p.f.state_bytes_per_request_per_gpu, d.f.state_bytes_per_request_per_gpu);
    const auto bytes = static_cast<std::uint64_t>(std::ceil(per_gpu * input_tokens + state));
    const Kernel<kernels::P2p> link(timing_, kernels::P2p::Config{std::max<std::uint32_t>(unit_gpus, 2)});
    return link.eval({bytes}).time_s;
  }

  // Simulates candidate c with `worker` as its (decode) worker and, disaggregated,
  // `prefill` as each prefill worker. c gives the mode, the worker counts, the batch cap,
  // the token budget and the load per unit (clients, or for a rate load the replicas);
  // the unit's GPUs, the hand-off time, the replicas (0: as many as spec.gpus hold) and
  // the rate per replica are filled in here. A non-empty `trace` is the unit's requests
  // (arrivals and lengths) in place of the spec's load; the hand-off is then timed at
  // the trace's mean prompt.
  PlanRow run(Candidate c, const WorkerOption& worker, const WorkerOption* prefill = nullptr,
              std::span<const Request> trace = {}) {
    const bool disagg = c.mode == Mode::disaggregated;
    if (disagg && prefill == nullptr) throw InputError("a disaggregated unit needs its prefill worker");
    c.worker = worker.p;
    if (!disagg) {
      c.unit_gpus = worker.f.gpus;
    } else {
      c.prefill = prefill->p;
      c.unit_gpus = c.prefill_workers * prefill->f.gpus + c.decode_workers * worker.f.gpus;
      c.transfer_s = transfer_s(*prefill, worker, c.unit_gpus, trace.empty() ? spec_.input_tokens : mean_input(trace));
    }
    if (c.replicas == 0) c.replicas = spec_.gpus / c.unit_gpus;
    if (trace.empty() && spec_.load == PlanSpec::LoadMode::rate) c.rate = spec_.rate / c.replicas;
    Load load;
    load.input_tokens = spec_.input_tokens;
    load.output_tokens = spec_.output_tokens;
    load.cached_tokens = spec_.cached_tokens;
    load.seed = spec_.seed;
    if (trace.empty()) load.min_length_ratio = spec_.min_length_ratio;
    if (!trace.empty()) {
      c.clients = 0;
      load.kind = Load::Kind::trace;
      load.trace = trace;
      load.warmup = static_cast<std::uint32_t>(trace.size() / 10);
      load.measured = static_cast<std::uint32_t>(trace.size()) - load.warmup;
      // The trace's mean arrival rate: what "requests in flight" is reckoned from.
      const double span = trace.back().arrival_s - trace.front().arrival_s;
      load.rate = c.rate = span > 0 ? static_cast<double>(trace.size() - 1) / span : 0.0;
    } else if (c.clients > 0) {
      load.kind = Load::Kind::closed;
      load.clients = c.clients;
      load.stagger_s = spec_.client_start == PlanSpec::ClientStart::staggered
                           ? latency_estimate_s(c, worker, prefill) / c.clients
                           : 0.0;
      load.warmup = spec_.warmup == PlanSpec::Warmup::drained ? 0 : c.clients;
      const std::uint64_t measured = std::uint64_t{spec_.rounds} * c.clients;
      if (measured > 0xfffffffeull - load.warmup)
        throw InputError("closed loop: " + std::to_string(spec_.rounds) + " rounds of " + std::to_string(c.clients) +
                         " clients are more requests than a simulation holds (2^32 - 2)");
      load.measured = std::max(spec_.min_requests, static_cast<std::uint32_t>(measured));
    } else {
      load.kind = Load::Kind::open;
      load.rate = c.rate;
      load.measured = spec_.requests;
      load.warmup = spec_.requests / 10;
    }
    PlanRow row;
    row.c = c;
    row.r = simulate(c, worker, prefill, load);
    const Sla& sla = spec_.sla;
    row.sla_ratio = sla.ratio(row.r.ttft_s, row.r.tpot_s, row.r.e2e_s);
    row.status = row.r.stopped_early                                  ? Status::stopped_early
                 : sla.met_by(row.r.ttft_s, row.r.tpot_s, row.r.e2e_s) ? Status::meets
                                                                        : Status::misses;
    return row;
  }

  // The batch cap of each prefill worker when the candidate gives none: the spec's
  // max_batch per DP group (a prefill worker's batch is bounded by its token budget first).
  std::uint32_t prefill_batch(const Candidate& c, const WorkerOption& prefill) const noexcept {
    return c.prefill_batch != 0 ? c.prefill_batch : std::max<std::uint32_t>(spec_.max_batch * prefill.f.kv_groups, 1);
  }

 private:
  static std::uint32_t mean_input(std::span<const Request> trace) {
    double sum = 0;
    for (const Request& r : trace) sum += r.input_tokens;
    return static_cast<std::uint32_t>(std::llround(sum / static_cast<double>(trace.size())));
  }

  // One request's latency, roughly, from three iterations: its prompt alone, then its
  // outputs at the worker's batch cap half-way through them. Only spreads the clients.
  double latency_estimate_s(const Candidate& c, const WorkerOption& worker, const WorkerOption* prefill) {
    AnyModel& first_model = prefill != nullptr ? prefill_models_.model(prefill->p) : models_.model(worker.p);
    const ops::PrefillChunk prompt{spec_.cached_tokens, spec_.input_tokens - spec_.cached_tokens};
    const double first = first_model.iteration_s({std::span<const ops::PrefillChunk>(&prompt, 1), {}});
    estimate_kv_.assign(std::max<std::uint32_t>(std::min(c.batch, c.clients), 1),
                        spec_.input_tokens + spec_.output_tokens / 2);
    const double step = models_.model(worker.p).iteration_s({{}, estimate_kv_});
    return first + c.transfer_s + (spec_.output_tokens - 1) * step;
  }

  UnitResult simulate(const Candidate& c, const WorkerOption& w, const WorkerOption* prefill, const Load& load) {
    AnyModel& wm = models_.model(w.p);
    if (c.mode == Mode::aggregated) {
      WorkerSetup s{server_of(w, c.token_budget, c.batch), w.kv_tokens()};
      return simulate_aggregated(wm, s, load, spec_.sla);
    }
    AnyModel& pm = prefill_models_.model(prefill->p);
    WorkerSetup ps{server_of(*prefill, c.token_budget, prefill_batch(c, *prefill)), prefill->kv_tokens()};
    // Decodes only: one row each, or 1 + draft_tokens under speculative decoding.
    WorkerSetup ds{server_of(w, c.batch * (1 + spec_.engine.draft_tokens), c.batch), w.kv_tokens()};
    return simulate_disaggregated(pm, c.prefill_workers, ps, wm, c.decode_workers, ds, c.transfer_s, load, spec_.sla);
  }

  // The engine's settings for worker w at a token budget and batch cap, its requests'
  // fixed states in their footprints.
  ServerConfig server_of(const WorkerOption& w, std::uint32_t token_budget, std::uint32_t batch) const {
    ServerConfig s = spec_.server(token_budget, batch);
    s.state_tokens = w.state_tokens();
    return s;
  }

  ModelSource& models_;
  ModelSource& prefill_models_;
  const Timing& timing_;
  const PlanSpec& spec_;
  std::vector<std::uint32_t> estimate_kv_;
};

}  // namespace costdsl::serve
