#pragma once
// simulate_aggregated / simulate_disaggregated: one deployment unit under a Load, with
// percentiles over the measured requests and throughput over the measurement window.
//
// Aggregated: one Worker serves requests from arrival to their last token. Replicas of
// it are independent (clients or Poisson arrivals split over replicas at random give
// each the same load), so a deployment of r replicas is one unit simulated, times r.
//
// Disaggregated: x prefill workers and y decode workers on one clock. A request is
// dealt round-robin to a prefill worker, which computes its first token; its KV then
// crosses to a decode worker (round-robin) in `transfer_s`, one transfer at a time per
// prefill worker (later ones wait for the link); the decode worker produces the rest.
// The client sees the first token when the decode worker takes the request into its
// batch (its TTFT ends there, after the hand-off and any wait for room on the decode
// worker): the decode server streams every token, the first included, once the KV has
// landed (SGLang's decode server emits it with the prebuilt batch that follows the
// transfer, python/sglang/srt/disaggregation/decode.py; vLLM's and TensorRT-LLM's
// routers stream the decode instance's response).
//
// The workers advance in order of their next event (the smallest clock among those with
// work): an iteration starts once every event before it is known, so a request that
// lands while a worker is mid-iteration joins its next one, as in a real engine.
//
// The measurement window runs from the arrival of the first measured request to the
// arrival of the last request (the drain after it, with fewer requests in flight, is left
// out); output tokens of iterations that end inside it count towards the throughput.
// With an SLA, a run stops as soon as so many measured requests miss a limit that the
// percentile must miss it too (Sla::certain_miss_count): its figures are then partial.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <span>
#include <vector>

#include "costdsl/error.hpp"
#include "costdsl/serve/iteration_model.hpp"
#include "costdsl/serve/load.hpp"
#include "costdsl/serve/percentiles.hpp"
#include "costdsl/serve/request.hpp"
#include "costdsl/serve/server_config.hpp"
#include "costdsl/serve/sla.hpp"
#include "costdsl/serve/unit_result.hpp"
#include "costdsl/serve/worker.hpp"

namespace costdsl::serve {

struct WorkerSetup {
  ServerConfig server;
  std::uint64_t kv_tokens = 0;  // the worker's KV capacity (all its pools)
};

namespace detail {

// Per-request bookkeeping shared by both unit kinds: first tokens, completions, the
// closed loop's next requests, the window and the early stop.
class UnitRecorder {
 public:
  UnitRecorder(const Load& load, const Sla& sla)
      : load_(load), sla_(sla), reqs_(load.requests()), first_s_(reqs_.size(), 0) {
    ttft_.reserve(load.measured);
    tpot_.reserve(load.measured);
    e2e_.reserve(load.measured);
    miss_limit_ = sla.any() ? sla.certain_miss_count(load.measured) : std::numeric_limits<std::uint64_t>::max();
    if (load.open_loop()) {
      window_start_ = reqs_[load.warmup].arrival_s;
      window_end_ = reqs_.back().arrival_s;
    }
  }

  std::span<const Request> requests() const noexcept { return reqs_; }

  // The requests known up front (closed loop: each client's first; open: all).
  template <class Send>
  void start(Send&& send) {
    const std::uint32_t n = load_.open_loop() ? load_.total() : std::min(load_.clients, load_.total());
    for (std::uint32_t i = 0; i < n; ++i) issue(reqs_[i].arrival_s, send);
  }

  void first_token(std::uint32_t id, double t) {
    first_s_[id] = t;
    if (id < load_.warmup) return;
    const double v = t - reqs_[id].arrival_s;
    ttft_.push_back(v);
    if (v > sla_.ttft_s) ++ttft_miss_;
  }

  // Request id finished at t; a closed loop sends the next one at once.
  template <class Send>
  void finished(std::uint32_t id, double t, Send&& send) {
    ++finished_;
    if (id >= load_.warmup) {
      const Request& q = reqs_[id];
      const double e2e = t - q.arrival_s, tpot = (t - first_s_[id]) / (q.output_tokens - 1);
      e2e_.push_back(e2e);
      tpot_.push_back(tpot);
      if (e2e > sla_.e2e_s) ++e2e_miss_;
      if (tpot > sla_.tpot_s) ++tpot_miss_;
    }
    if (load_.kind == Load::Kind::closed && issued_ < load_.total()) issue(t, send);
  }

  // A step's iterations, each ending at its time with an equal share of the tokens.
  void iterations(const StepEvents& ev) {
    const std::uint32_t tokens = ev.output_tokens / ev.iterations;
    for (const double t : ev.iteration_ends) {
      if (t >= window_start_ && t <= window_end_) window_tokens_ += tokens;
      last_s_ = std::max(last_s_, t);
      all_tokens_ += tokens;
    }
  }

  bool all_done() const noexcept { return finished_ == load_.total(); }
  bool certain_miss() const noexcept {
    return ttft_miss_ >= miss_limit_ || tpot_miss_ >= miss_limit_ || e2e_miss_ >= miss_limit_;
  }

  UnitResult result(std::uint64_t iterations) {
    UnitResult r;
    r.warmup = load_.warmup;
    r.measured = load_.measured;
    r.finished = static_cast<std::uint32_t>(e2e_.size());
    r.stopped_early = !all_done();
    r.iterations = iterations;
    r.sim_time_s = last_s_;
    double tpot_sum = 0;
    for (const double x : tpot_) tpot_sum += x;
    r.ttft_s = Percentiles::of(ttft_);
    r.tpot_s = Percentiles::of(tpot_);
    r.e2e_s = Percentiles::of(e2e_);
    if (tpot_sum > 0) r.tokens_per_s_user = static_cast<double>(tpot_.size()) / tpot_sum;
    const double window = window_end_ - window_start_;
    if (window > 0 && window_end_ < std::numeric_limits<double>::infinity()) {
      r.output_tokens_per_s = window_tokens_ / window;
    } else if (last_s_ > 0) {  // no window (one measured request, or all sent at once): the whole run
      r.output_tokens_per_s = all_tokens_ / last_s_;
    }
    r.in_flight = load_.kind == Load::Kind::closed ? load_.clients : load_.rate * r.e2e_s.mean;
    return r;
  }

 private:
  template <class Send>
  void issue(double t, Send& send) {
    const std::uint32_t id = issued_++;
    reqs_[id].arrival_s = t;
    if (load_.kind == Load::Kind::closed) {
      if (id == load_.warmup) window_start_ = t;
      if (id + 1 == load_.total()) window_end_ = t;
    }
    send(id, t);
  }

  const Load& load_;
  Sla sla_;
  std::vector<Request> reqs_;
  std::vector<double> first_s_;
  std::vector<double> ttft_, tpot_, e2e_;
  std::uint32_t issued_ = 0, finished_ = 0;
  std::uint64_t ttft_miss_ = 0, tpot_miss_ = 0, e2e_miss_ = 0, miss_limit_ = 0;
  double window_start_ = std::numeric_limits<double>::infinity();
  double window_end_ = std::numeric_limits<double>::infinity();
  double window_tokens_ = 0, all_tokens_ = 0, last_s_ = 0;
};

}  // namespace detail

template <IterationModel Model>
UnitResult simulate_aggregated(Model& model, const WorkerSetup& setup, const Load& load, const Sla& sla = {}) {
  detail::UnitRecorder rec(load, sla);
  Worker<Model> worker(model, rec.requests(), setup.server, setup.kv_tokens, Role::aggregated, load.total());
  const auto send = [&](std::uint32_t id, double t) { worker.arrive(id, t); };
  rec.start(send);
  while (!rec.all_done() && !rec.certain_miss()) {
    if (!(worker.next_event_s() < std::numeric_limits<double>::infinity()))
      throw InputError("aggregated unit: requests were rejected (each needs more KV than the worker's " +
                       std::to_string(setup.kv_tokens) + " tokens)");
    // Its only outside events are the clients' next requests, sent at a finish, which ends a
    // decode stretch anyway.
    const StepEvents ev = worker.step(std::numeric_limits<double>::infinity());
    if (!ev.iteration) continue;
    rec.iterations(ev);
    for (const std::uint32_t id : ev.first_tokens) rec.first_token(id, ev.end_s);
    for (const std::uint32_t id : ev.finished) rec.finished(id, ev.end_s, send);
  }
  return rec.result(worker.stats().iterations);
}

template <IterationModel PrefillModel, IterationModel DecodeModel>
UnitResult simulate_disaggregated(PrefillModel& prefill_model, std::uint32_t prefill_workers,
                                  const WorkerSetup& prefill, DecodeModel& decode_model, std::uint32_t decode_workers,
                                  const WorkerSetup& decode, double transfer_s, const Load& load,
                                  const Sla& sla = {}) {
  if (prefill_workers == 0 || decode_workers == 0)
    throw InputError("disaggregated unit: needs at least one prefill and one decode worker");
  if (!(transfer_s >= 0)) throw InputError("disaggregated unit: transfer time must be >= 0");
  detail::UnitRecorder rec(load, sla);
  std::vector<Worker<PrefillModel>> p;
  std::vector<Worker<DecodeModel>> d;
  p.reserve(prefill_workers);
  d.reserve(decode_workers);
  for (std::uint32_t i = 0; i < prefill_workers; ++i)
    p.emplace_back(prefill_model, rec.requests(), prefill.server, prefill.kv_tokens, Role::prefill, load.total());
  for (std::uint32_t i = 0; i < decode_workers; ++i)
    d.emplace_back(decode_model, rec.requests(), decode.server, decode.kv_tokens, Role::decode, load.total());
  std::vector<double> link_free_s(prefill_workers, 0.0);
  std::uint32_t next_p = 0, next_d = 0;
  const auto send = [&](std::uint32_t id, double t) {
    p[next_p].arrive(id, t);
    next_p = next_p + 1 == prefill_workers ? 0 : next_p + 1;
  };
  rec.start(send);
  std::uint64_t iterations = 0;
  while (!rec.all_done() && !rec.certain_miss()) {
    // The worker with the earliest next event; ties go to prefill workers, then by index.
    // The next-earliest is its horizon: a decode stretch stops before any other worker's
    // next step, which could hand it a request.
    double best = std::numeric_limits<double>::infinity(), horizon = best;
    std::size_t which = 0;
    bool is_prefill = true;
    const auto consider = [&](double t, std::size_t i, bool prefill) {
      if (t < best) {
        horizon = best;
        best = t, which = i, is_prefill = prefill;
      } else {
        horizon = std::min(horizon, t);
      }
    };
    for (std::size_t i = 0; i < p.size(); ++i) consider(p[i].next_event_s(), i, true);
    for (std::size_t i = 0; i < d.size(); ++i) consider(d[i].next_event_s(), i, false);
    if (!(best < std::numeric_limits<double>::infinity()))
      throw InputError("disaggregated unit: requests were rejected (each needs more KV than a worker holds: prefill " +
                       std::to_string(prefill.kv_tokens) + ", decode " + std::to_string(decode.kv_tokens) +
                       " tokens)");
    if (is_prefill) {
      const StepEvents ev = p[which].step(horizon);
      if (!ev.iteration) continue;
      iterations += ev.iterations;
      rec.iterations(ev);
      for (const std::uint32_t id : ev.finished) {  // handed on: the KV crosses to a decode worker
        const double start = std::max(ev.end_s, link_free_s[which]);
        link_free_s[which] = start + transfer_s;
        d[next_d].arrive(id, start + transfer_s);
        next_d = next_d + 1 == decode_workers ? 0 : next_d + 1;
      }
    } else {
      const StepEvents ev = d[which].step(horizon);
      if (!ev.iteration) continue;
      iterations += ev.iterations;
      // Taken into the batch: the first token reaches the client as this iteration starts.
      for (const std::uint32_t id : ev.admitted) rec.first_token(id, ev.start_s);
      rec.iterations(ev);
      for (const std::uint32_t id : ev.finished) rec.finished(id, ev.end_s, send);
    }
  }
  return rec.result(iterations);
}

}  // namespace costdsl::serve
