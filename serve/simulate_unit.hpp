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
// routers stream the decode instance's response). A decode server streaming in chunks
// (ServerConfig::stream_interval) sends that first token with the interval's last.
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
#include <cmath>
#include <cstdint>
#include <cstdlib>
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

// COSTDSL_NO_CYCLE_SKIP=1 steps every round in every simulation (Cycles::step), for A/B runs of
// the command-line tools.
inline bool skip_cycles_disabled() {
  static const bool off = std::getenv("COSTDSL_NO_CYCLE_SKIP") != nullptr;
  return off;
}

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
  std::uint32_t issued() const noexcept { return issued_; }

  // What a repeat of a cycle adds, and where it starts (CycleSkip).
  struct Mark {
    std::size_t ttft = 0, tpot = 0, e2e = 0;
    std::uint32_t finished = 0;
    std::uint64_t ttft_miss = 0, tpot_miss = 0, e2e_miss = 0;
    double window_tokens = 0, all_tokens = 0;
  };
  Mark mark() const noexcept {
    return {ttft_.size(), tpot_.size(), e2e_.size(), finished_, ttft_miss_, tpot_miss_, e2e_miss_, window_tokens_,
            all_tokens_};
  }
  // The bookkeeping a later event depends on, as Worker::state (the requests in flight,
  // `held`, with their arrivals and first tokens); false where a cycle cannot be skipped
  // here: a request in flight still warming up, or the window not yet open.
  bool state(double t0, std::uint32_t base, std::span<const std::uint32_t> held, std::vector<std::int64_t>& ints,
             std::vector<double>& times) const {
    if (!(window_start_ <= t0) || window_end_ < std::numeric_limits<double>::infinity()) return false;
    ints.insert(ints.end(), {std::int64_t{issued_} - base, std::int64_t{finished_} - base});
    for (const std::uint32_t id : held) {
      if (id < load_.warmup) return false;
      times.push_back(reqs_[id].arrival_s - t0);
      times.push_back(first_s_[id] > 0 ? first_s_[id] - t0 : -1.0);
    }
    return true;
  }
  // Moves the bookkeeping `periods` repeats on: the requests in flight (`held`, their old
  // ids) become ids + did at times + dt, and what was recorded since `since` is recorded
  // `periods` times more.
  void shift(std::span<const std::uint32_t> held, double dt, std::uint32_t did, std::uint64_t periods,
             const Mark& since) {
    for (const std::uint32_t id : held) {
      reqs_[id + did].arrival_s = reqs_[id].arrival_s + dt;
      first_s_[id + did] = first_s_[id] > 0 ? first_s_[id] + dt : 0;
    }
    const auto repeat = [periods](std::vector<double>& v, std::size_t from) {
      const std::size_t n = v.size() - from;
      v.reserve(v.size() + periods * n);
      for (std::uint64_t k = 0; k < periods; ++k)
        for (std::size_t i = 0; i < n; ++i) v.push_back(v[from + i]);
    };
    repeat(ttft_, since.ttft);
    repeat(tpot_, since.tpot);
    repeat(e2e_, since.e2e);
    const Mark now = mark();
    issued_ += did;
    finished_ += static_cast<std::uint32_t>(periods * (now.finished - since.finished));
    ttft_miss_ += periods * (now.ttft_miss - since.ttft_miss);
    tpot_miss_ += periods * (now.tpot_miss - since.tpot_miss);
    e2e_miss_ += periods * (now.e2e_miss - since.e2e_miss);
    window_tokens_ += static_cast<double>(periods) * (now.window_tokens - since.window_tokens);
    all_tokens_ += static_cast<double>(periods) * (now.all_tokens - since.all_tokens);
    last_s_ += dt;
  }
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

// A closed loop of fixed-length requests settles into a cycle (requests of drawn lengths
// never repeat: not skipped): after some rounds the
// unit's state at a round's start is an earlier round start's, every time later by one
// period P and every request id by the requests issued since, D. From then on each period
// repeats the last exactly, so CycleSkip moves the workers and the bookkeeping on by as
// many whole periods as leave the last two and the rest (the clients stopping) to run, and
// records the period's figures once per period skipped. States are compared exactly but for
// times, which match within 1 ns (sums of the same iteration times at another offset
// differ in their last bits); every figure is then stepping's within rounding
// (tests/serve/test_engine.cpp checks random workloads against Cycles::step).
// Checkpoints fall between steps, the first after each `clients` more requests issued.
class CycleSkip {
 public:
  CycleSkip(const Load& load, const Sla& sla, bool allowed)
      : on_(allowed && load.kind == Load::Kind::closed && load.fixed_lengths() && !sla.any() &&
            load.total() >= 4 * load.clients),
        clients_(load.clients), total_(load.total()), next_(load.clients) {}

  // Unit: the workers and what couples them (AggregatedUnit, DisaggregatedUnit below).
  template <class Unit>
  void checkpoint(Unit& unit, UnitRecorder& rec) {
    if (!on_ || rec.issued() < next_) return;
    next_ = rec.issued() + clients_;
    Snapshot now;
    now.t0 = unit.clock();
    now.base = rec.issued();
    unit.state(now.t0, now.base, now.ints, now.times, now.held);
    now.valid = rec.state(now.t0, now.base, now.held, now.ints, now.times);
    now.mark = rec.mark();
    unit.stats(now.stats);
    // A cycle may span several checkpoints (requests dealt round-robin over workers repeat
    // only when the deal does): the newest earlier checkpoint with the same state is one
    // period back.
    for (auto prev = history_.rbegin(); now.valid && prev != history_.rend(); ++prev) {
      if (!prev->valid || !same(now, *prev)) continue;
      const double period = now.t0 - prev->t0;
      const std::uint32_t stride = now.base - prev->base;
      // Whole periods while two more of them and the rest are left to run.
      const std::uint64_t left = total_ - now.base;
      const std::uint64_t periods = stride > 0 && left / stride >= 3 ? left / stride - 2 : 0;
      if (periods == 0 || !(period > 0)) break;
      const double dt = period * static_cast<double>(periods);
      const std::uint32_t did = static_cast<std::uint32_t>(periods * stride);
      std::vector<WorkerStats> per_period(now.stats.size());
      for (std::size_t i = 0; i < per_period.size(); ++i) per_period[i] = now.stats[i].since(prev->stats[i]);
      rec.shift(now.held, dt, did, periods, prev->mark);
      unit.shift(dt, did, per_period, periods);
      replayed_ += did;
      next_ = rec.issued() + clients_;
      history_.clear();
      return;
    }
    if (history_.size() == max_history) history_.erase(history_.begin());
    history_.push_back(std::move(now));
  }
  std::uint32_t replayed() const noexcept { return replayed_; }

 private:
  struct Snapshot {
    bool valid = false;
    double t0 = 0;
    std::uint32_t base = 0;
    std::vector<std::int64_t> ints;
    std::vector<double> times;
    std::vector<std::uint32_t> held;
    UnitRecorder::Mark mark;
    std::vector<WorkerStats> stats;
  };
  static bool same(const Snapshot& a, const Snapshot& b) {
    if (a.ints != b.ints || a.times.size() != b.times.size()) return false;
    for (std::size_t i = 0; i < a.times.size(); ++i)
      if (!(std::abs(a.times[i] - b.times[i]) <= 1e-9)) return false;
    return true;
  }

  bool on_;
  std::uint32_t clients_;
  std::uint32_t total_;
  std::uint32_t next_;
  static constexpr std::size_t max_history = 6;  // checkpoints a period may span
  std::vector<Snapshot> history_;
  std::uint32_t replayed_ = 0;
};

// CycleSkip's view of an aggregated unit: one worker.
template <class W>
struct AggregatedUnit {
  W& worker;
  double clock() const { return worker.clock_s(); }
  void state(double t0, std::uint32_t base, std::vector<std::int64_t>& ints, std::vector<double>& times,
             std::vector<std::uint32_t>& held) const {
    worker.state(t0, base, ints, times, held);
  }
  void stats(std::vector<WorkerStats>& out) const { out.push_back(worker.stats()); }
  void shift(double dt, std::uint32_t did, std::span<const WorkerStats> per_period, std::uint64_t periods) {
    worker.shift(dt, did, per_period[0], periods);
  }
};

// ... and of a disaggregated one: its workers, the prefill workers' links and the
// round-robin turns.
template <class P, class D>
struct DisaggregatedUnit {
  std::vector<P>& prefill;
  std::vector<D>& decode;
  std::vector<double>& link_free_s;
  std::uint32_t& next_p;
  std::uint32_t& next_d;
  double clock() const {
    double t = 0;
    for (const auto& w : prefill) t = std::max(t, w.clock_s());
    for (const auto& w : decode) t = std::max(t, w.clock_s());
    return t;
  }
  void state(double t0, std::uint32_t base, std::vector<std::int64_t>& ints, std::vector<double>& times,
             std::vector<std::uint32_t>& held) const {
    ints.insert(ints.end(), {next_p, next_d});
    // A link free before its worker's clock is free for any hand-off still to come (one
    // starts at a prefill's end at the earliest): such times all count as the clock's.
    for (std::size_t i = 0; i < link_free_s.size(); ++i)
      times.push_back(std::max(link_free_s[i], prefill[i].clock_s()) - t0);
    for (const auto& w : prefill) w.state(t0, base, ints, times, held);
    for (const auto& w : decode) w.state(t0, base, ints, times, held);
  }
  void stats(std::vector<WorkerStats>& out) const {
    for (const auto& w : prefill) out.push_back(w.stats());
    for (const auto& w : decode) out.push_back(w.stats());
  }
  void shift(double dt, std::uint32_t did, std::span<const WorkerStats> per_period, std::uint64_t periods) {
    for (double& t : link_free_s) t += dt;
    std::size_t i = 0;
    for (auto& w : prefill) w.shift(dt, did, per_period[i++], periods);
    for (auto& w : decode) w.shift(dt, did, per_period[i++], periods);
  }
};

}  // namespace detail

// How a closed loop's repeated rounds run: `skip` replays a settled cycle (CycleSkip),
// `step` steps every round (the reference the replay is tested against).
enum class Cycles : std::uint8_t { skip, step };

template <IterationModel Model>
UnitResult simulate_aggregated(Model& model, const WorkerSetup& setup, const Load& load, const Sla& sla = {},
                               Cycles cycles_mode = Cycles::skip) {
  detail::UnitRecorder rec(load, sla);
  Worker<Model> worker(model, rec.requests(), setup.server, setup.kv_tokens, Role::aggregated, load.total());
  const auto send = [&](std::uint32_t id, double t) { worker.arrive(id, t); };
  rec.start(send);
  detail::CycleSkip cycles(load, sla, cycles_mode == Cycles::skip && !detail::skip_cycles_disabled());
  detail::AggregatedUnit<Worker<Model>> unit{worker};
  while (!rec.all_done() && !rec.certain_miss()) {
    cycles.checkpoint(unit, rec);
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
  UnitResult r = rec.result(worker.stats().iterations);
  r.replayed = cycles.replayed();
  return r;
}

template <IterationModel PrefillModel, IterationModel DecodeModel>
UnitResult simulate_disaggregated(PrefillModel& prefill_model, std::uint32_t prefill_workers,
                                  const WorkerSetup& prefill, DecodeModel& decode_model, std::uint32_t decode_workers,
                                  const WorkerSetup& decode, double transfer_s, const Load& load,
                                  const Sla& sla = {}, Cycles cycles_mode = Cycles::skip) {
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
  detail::CycleSkip cycles(load, sla, cycles_mode == Cycles::skip && !detail::skip_cycles_disabled());
  detail::DisaggregatedUnit<Worker<PrefillModel>, Worker<DecodeModel>> unit{p, d, link_free_s, next_p, next_d};
  while (!rec.all_done() && !rec.certain_miss()) {
    cycles.checkpoint(unit, rec);
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
      // Taken into the batch: the first token reaches the client as this iteration starts,
      // or, streamed in chunks, with the iteration that makes its stream_interval-th.
      if (decode.server.stream_interval > 1)
        for (const std::uint32_t id : ev.first_tokens) rec.first_token(id, ev.end_s);
      else
        for (const std::uint32_t id : ev.admitted) rec.first_token(id, ev.start_s);
      rec.iterations(ev);
      for (const std::uint32_t id : ev.finished) rec.finished(id, ev.end_s, send);
    }
  }
  std::uint64_t iterations = 0;  // every worker's
  for (const auto& w : p) iterations += w.stats().iterations;
  for (const auto& w : d) iterations += w.stats().iterations;
  UnitResult r = rec.result(iterations);
  r.replayed = cycles.replayed();
  return r;
}

}  // namespace costdsl::serve
