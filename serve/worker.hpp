#pragma once
// Worker: one serving engine (one replica's scheduler over its GPUs), advanced one
// scheduler iteration at a time so that several can share a clock (a disaggregated
// deployment's prefill and decode workers, a closed loop of clients).
//
// The model of a server is deliberately small and stated here so the numbers can be
// judged: one FCFS queue behind a front end that hands the engine one request at a time
// (ServerConfig::frontend_s apart); continuous batching with a per-iteration token
// budget; under Batching::mixed every running request that is decoding gets one token
// first, then prefill chunks fill what is left of the budget (chunked prefill, or whole
// prompts only); under Batching::prefill_first an iteration with a prompt pending is
// prefill only; a request's whole KV footprint (rounded up to KV blocks) is reserved
// when it is admitted, so the cache can never overflow and no preemption is needed; the
// last prefill chunk also yields the first output token, returned at once or, with
// lagged_first_token, with the next iteration; with overlap_scheduling a busy engine
// forms each iteration's batch as the one before launches (it admits what had arrived
// by then), an idle one at once; a decode-only batch runs padded to a
// captured CUDA-graph size where one is given; with batch waiting (batch_wait_iters) an
// iteration with decodes may hold its prompt rows back; with recv_interval a busy engine
// sees new requests only every so many loops; with stream_interval a first token is
// reported with the interval's token; with draft_tokens (speculative decoding) a decode
// verifies 1 + draft_tokens rows and advances by its accepted tokens. The clock moves by the model's
// time of each iteration: GPU work only, no scheduler or sampling overhead.
//
// Roles: `aggregated` runs requests from arrival to their last token (footprint: input
// + output); `prefill` runs a request's prefill only and hands it on with its first
// token (footprint: input); `decode` takes a request whose KV arrived from a prefill
// worker (input written, first token out; streamed with the stream_interval-th where the
// output goes out in chunks) and decodes the rest (footprint: input + output).
//
// Nothing in step() allocates once the buffers have grown to the batch cap (they are
// reserved up front), and nothing sorts: arrivals are inserted in order when they come.
//
// Decode stretches: between events, consecutive iterations differ only in every decoder's
// KV length growing by one. step(horizon_s) runs such a stretch in one call: after an
// iteration of decodes only (every decoder in the batch, nothing prefilling, nothing
// admitted, no first token out, none finished: no event a caller could act on), it goes
// on with the next iterations while each starts before horizon_s (the caller's next
// outside event: another worker's step, which may hand this one a request) and before the
// next queued request could be admitted, up to and including the iteration in which the
// first decoders finish or, with stream_interval, a first token streams (none with
// recv_interval, whose every loop counts). Each iteration is the model's time of its own
// batch and the clock adds them one by one, so every figure is stepping's, bit for bit;
// what is saved is the bookkeeping between iterations.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <vector>

#include "costdsl/detail/blocked_loop.hpp"
#include "costdsl/error.hpp"
#include "costdsl/ops/attention/batch.hpp"
#include "costdsl/serve/iteration_model.hpp"
#include "costdsl/serve/request.hpp"
#include "costdsl/serve/server_config.hpp"

namespace costdsl::serve {

enum class Role : std::uint8_t { aggregated, prefill, decode };

struct WorkerStats {
  std::uint64_t iterations = 0, idle_gaps = 0;
  std::uint64_t prefill_tokens = 0, output_tokens = 0;
  std::uint64_t batch_tokens = 0;  // Σ new tokens per iteration
  double busy_s = 0;               // Σ iteration times
  std::uint64_t kv_reserved_peak = 0, kv_used_peak = 0;  // tokens
  std::uint32_t batch_peak = 0;                          // running requests at most
  std::uint64_t rejected = 0;                            // footprint larger than the whole cache

  // The counters (not the peaks) added since `earlier`, and `times` such additions: a
  // repeated cycle's share (serve/simulate_unit.hpp).
  WorkerStats since(const WorkerStats& earlier) const noexcept {
    WorkerStats d;
    d.iterations = iterations - earlier.iterations;
    d.idle_gaps = idle_gaps - earlier.idle_gaps;
    d.prefill_tokens = prefill_tokens - earlier.prefill_tokens;
    d.output_tokens = output_tokens - earlier.output_tokens;
    d.batch_tokens = batch_tokens - earlier.batch_tokens;
    d.busy_s = busy_s - earlier.busy_s;
    d.rejected = rejected - earlier.rejected;
    return d;
  }
  void add(const WorkerStats& d, std::uint64_t times) noexcept {
    iterations += times * d.iterations;
    idle_gaps += times * d.idle_gaps;
    prefill_tokens += times * d.prefill_tokens;
    output_tokens += times * d.output_tokens;
    batch_tokens += times * d.batch_tokens;
    busy_s += static_cast<double>(times) * d.busy_s;
    rejected += times * d.rejected;
  }
};

// What one step() did. An iteration ran over [start_s, end_s] (or, when `iteration` is
// false, the worker only moved its clock to the next arrival). The spans list request
// ids and stay valid until the next step().
struct StepEvents {
  bool iteration = false;
  double start_s = 0, end_s = 0;
  std::uint32_t iterations = 0;              // 1, or a decode stretch's length
  std::span<const double> iteration_ends;    // when each iteration ended (the last: end_s)
  std::uint32_t output_tokens = 0;           // tokens produced (a stretch: as many by each iteration)
  std::span<const std::uint32_t> admitted;   // admitted at start_s
  std::span<const std::uint32_t> rejected;   // larger than the whole cache: dropped at start_s
  std::span<const std::uint32_t> first_tokens;  // first token out at end_s
  std::span<const std::uint32_t> finished;   // done on this worker at end_s (prefill role: handed on)
};

// Times this close are one instant: a request arriving within 1 ns of a batch being formed
// makes that batch. Arrival and launch times are sums of different terms, so a tie (a front
// end 2 ms apart, iterations of whole microseconds) must not be decided by their last bits,
// which differ between two equal states at other times (CycleSkip matches states to 1 ns).
inline constexpr double same_instant_s = 1e-9;

template <IterationModel Model>
class Worker {
 public:
  // requests: every request's lengths, by id (arrive() gives the time each reaches this
  // worker). expected_arrivals: how many arrive() calls to reserve room for.
  Worker(Model& model, std::span<const Request> requests, const ServerConfig& cfg, std::uint64_t kv_capacity_tokens,
         Role role = Role::aggregated, std::size_t expected_arrivals = 0)
      : model_(&model), reqs_(requests), cfg_(cfg), capacity_(kv_capacity_tokens), role_(role) {
    if (cfg.max_batch_tokens == 0 || cfg.max_seqs == 0 || cfg.kv_block == 0)
      throw InputError("max_batch_tokens, max_seqs and kv_block must be at least 1");
    for (std::size_t i = 0; i < cfg.cuda_graph_batches.size(); ++i)
      if (cfg.cuda_graph_batches[i] == 0 || (i > 0 && cfg.cuda_graph_batches[i] <= cfg.cuda_graph_batches[i - 1]))
        throw InputError("cuda_graph_batches must be ascending batch sizes of at least 1");
    if (!(cfg.batch_wait_tokens_ratio >= 0 && cfg.batch_wait_tokens_ratio <= 1e6))
      throw InputError("batch_wait_tokens_ratio must be a number of at least 0");
    if (!(cfg.eager_launch_s >= 0 && cfg.eager_launch_s <= 1))
      throw InputError("eager_launch_s must be a number of seconds from 0 to 1");
    if (cfg.stream_interval == 0 || cfg.recv_interval == 0)
      throw InputError("stream_interval and recv_interval must be at least 1 (1: every token, every loop)");
    if (cfg.stream_interval > 1 && cfg.lagged_first_token)
      throw InputError("stream_interval " + std::to_string(cfg.stream_interval) +
                       " with lagged_first_token: the first is SGLang's streaming, the second TensorRT-LLM's, which "
                       "streams a first token whatever its interval");
    if (cfg.draft_tokens > max_draft_tokens)
      throw InputError("draft_tokens " + std::to_string(cfg.draft_tokens) + " exceeds " +
                       std::to_string(max_draft_tokens) + " (draft tokens a speculative step verifies)");
    for (const double rate : cfg.draft_acceptance)
      if (!(rate >= 0 && rate <= 1))
        throw InputError("draft_acceptance " + std::to_string(rate) + ": each draft token's acceptance is a chance, 0 to 1");
    if (cfg.draft_tokens > 0) {
      std::uint32_t layers = 0;
      if constexpr (CountsLayers<Model>) layers = model.layers();
      if (layers == 0)
        throw InputError("draft_tokens " + std::to_string(cfg.draft_tokens) +
                         ": speculative decoding needs a model that counts its decoder layers (the draft layers' share "
                         "of a step)");
      draft_factor_ = (double(layers) + cfg.draft_tokens) / double(layers);
      if (role != Role::prefill && cfg.max_batch_tokens < 1 + cfg.draft_tokens)
        throw InputError("max_batch_tokens " + std::to_string(cfg.max_batch_tokens) + " is below the " +
                         std::to_string(1 + cfg.draft_tokens) +
                         " rows one speculative decode verifies (1 + draft_tokens): no decode could run");
    }
    const std::size_t seqs = std::min<std::size_t>(cfg.max_seqs, std::max<std::size_t>(requests.size(), 1));
    prefilling_.reserve(seqs);
    for (auto* v : {&dec_id_, &dec_kv_, &dec_left_}) v->reserve(seqs);
    chunks_.reserve(seqs);
    first_.reserve(seqs);
    lagged_.reserve(seqs);
    if (cfg.stream_interval > 1) unseen_.reserve(seqs);
    if (!cfg.cuda_graph_batches.empty()) padded_kv_.reserve(cfg.cuda_graph_batches.back());
    finished_.reserve(seqs);
    admitted_.reserve(seqs);
    queue_.reserve(expected_arrivals);
    rejected_.reserve(expected_arrivals);
  }

  // Request `id` reaches this worker at `at_s`. Kept in arrival order (FCFS): usually
  // at the back already; a transfer that lands earlier than one queued before it moves
  // forward past it.
  void arrive(std::uint32_t id, double at_s) {
    const Request& r = reqs_[id];
    if (r.input_tokens == 0 || r.output_tokens == 0)
      throw InputError("request " + std::to_string(id) + ": input_tokens and output_tokens must be at least 1");
    if (r.cached_tokens >= r.input_tokens)
      throw InputError("request " + std::to_string(id) + ": cached_tokens " + std::to_string(r.cached_tokens) +
                       " must be below input_tokens " + std::to_string(r.input_tokens) +
                       " (the last prompt token is always computed: it yields the first output token)");
    if (role_ == Role::decode && r.output_tokens < 2)
      throw InputError("request " + std::to_string(id) + ": a decode worker needs output_tokens >= 2, got " +
                       std::to_string(r.output_tokens));
    if (role_ != Role::decode && !cfg_.chunked_prefill && r.input_tokens - r.cached_tokens > cfg_.max_batch_tokens)
      throw InputError("request " + std::to_string(id) + ": a prompt of " +
                       std::to_string(r.input_tokens - r.cached_tokens) + " new tokens exceeds max_batch_tokens " +
                       std::to_string(cfg_.max_batch_tokens) + " and chunked prefill is off (it would never run)");
    if (role_ != Role::decode && cfg_.frontend_s > 0) {  // the front end passes requests on one at a time
      at_s = std::max(at_s, frontend_free_s_) + cfg_.frontend_s;
      frontend_free_s_ = at_s;
    }
    if (head_ > 0 && head_ == queue_.size()) {  // drained: reuse the buffer from the start
      queue_.clear();
      head_ = 0;
    }
    queue_.push_back({id, at_s});
    for (std::size_t i = queue_.size() - 1; i > head_ && queue_[i - 1].at_s > at_s; --i)
      std::swap(queue_[i - 1], queue_[i]);
  }

  // When this worker next has something to do: now if it is running requests, else
  // when its first queued request arrives; +inf when it holds none.
  double next_event_s() const noexcept {
    if (running() > 0) return clock_;
    if (head_ < queue_.size()) return std::max(clock_, queue_[head_].at_s);
    return std::numeric_limits<double>::infinity();
  }

  // One iteration; with a horizon, a decode stretch it begins runs on (see the top).
  StepEvents step(double horizon_s = -std::numeric_limits<double>::infinity()) {
    admitted_.clear();
    rejected_.clear();
    first_.clear();
    first_.swap(lagged_);  // first tokens held back by the last iteration come out with this one
    finished_.clear();
    admit();
    StepEvents ev;
    ev.admitted = admitted_;
    ev.rejected = rejected_;
    if (running() == 0) {  // idle: jump to the next arrival
      if (head_ < queue_.size() && queue_[head_].at_s > clock_ + same_instant_s) {
        clock_ = queue_[head_].at_s;
        ++stats_.idle_gaps;
      }
      ev.start_s = ev.end_s = clock_;
      return ev;
    }

    // Decodes first (latency of requests already streaming): the first `decodes` decoders in
    // admission order, whose KV lengths are the batch's decode list as they stand; none
    // while a prompt is pending under prefill_first. Then prefill chunks in admission
    // order: a prefix of the prefilling requests, each given what is left of its prompt or
    // of the budget (without chunked prefill, only a whole rest that fits: arrive() made
    // sure every prompt fits an iteration of its own).
    const bool prefill_only = cfg_.batching == Batching::prefill_first && !prefilling_.empty();
    // A speculative step's decode takes 1 + draft_tokens rows of the budget (the tokens it verifies).
    const std::uint32_t rows_per_decode = 1 + cfg_.draft_tokens;
    const std::size_t decodes =
        prefill_only ? 0 : std::min<std::size_t>(dec_kv_.size(), cfg_.max_batch_tokens / rows_per_decode);
    const auto decode_rows = static_cast<std::uint32_t>(decodes) * rows_per_decode;
    std::uint32_t budget = cfg_.max_batch_tokens - decode_rows;
    chunks_.clear();
    std::size_t chunked = 0;
    for (; chunked < prefilling_.size() && budget > 0; ++chunked) {
      Prefilling& p = prefilling_[chunked];
      const std::uint32_t rest = reqs_[p.id].input_tokens - p.prefilled;
      if (!cfg_.chunked_prefill && rest > budget) break;
      p.chunk = std::min(rest, budget);
      chunks_.push_back({p.prefilled, p.chunk});
      budget -= p.chunk;
    }
    // Batch waiting: prompt rows beside decodes wait for a fuller iteration, at most
    // batch_wait_iters iterations in a row (ServerConfig).
    if (chunked > 0 && decodes > 0 && cfg_.batch_wait_iters > 0) {
      const std::uint32_t tokens = cfg_.max_batch_tokens - budget;
      if (waited_ < cfg_.batch_wait_iters && tokens < cfg_.batch_wait_tokens_ratio * cfg_.max_batch_tokens) {
        ++waited_;
        chunked = 0;
        chunks_.clear();
        budget = cfg_.max_batch_tokens - decode_rows;
      } else {
        waited_ = 0;
      }
    }

    ev.iteration = true;
    ev.start_s = clock_;
    run_iteration(decodes, cfg_.max_batch_tokens - budget);
    ends_.clear();
    ends_.push_back(clock_);
    stats_.batch_peak = std::max(stats_.batch_peak, static_cast<std::uint32_t>(running()));

    // Apply the iteration. Each decode writes the previous token's K/V row and yields a
    // token (plain loops over the decoders' arrays, which the compiler vectorises); the
    // last chunk of a prompt yields its first token.
    std::uint32_t ended = 0;  // decoders that produced their last token
    std::uint32_t out = static_cast<std::uint32_t>(decodes);
    if (cfg_.draft_tokens == 0) {
      std::uint32_t* kv = dec_kv_.data();  // one array per loop: see for_each_index_blocked
      costdsl::detail::for_each_index_blocked(decodes, [&](std::size_t i) { ++kv[i]; });
      std::uint32_t* left = dec_left_.data();
      costdsl::detail::for_each_index_blocked(decodes, [&](std::size_t i) {
        --left[i];
        ended += left[i] == 0 ? 1 : 0;
      });
      used_ += decodes;
    } else if (decodes > 0) {
      out = advance_speculative(decodes, ended);
    }
    last_prompt_rows_ = chunked > 0;
    if (!unseen_.empty()) stream_unseen();
    if (ended == 0 && chunked == 0 && prefilling_.empty() && decodes == dec_kv_.size() && first_.empty() &&
        lagged_.empty() && admitted_.empty() && rejected_.empty() && clock_ < horizon_s && cfg_.recv_interval == 1 &&
        cfg_.draft_tokens == 0) {
      out += stretch(decodes, horizon_s, ended);
      if (!unseen_.empty()) stream_unseen();
    }
    // Every chunked prompt but the last got all it had left: the finished ones are a prefix.
    std::size_t prompts_done = 0;
    for (std::size_t i = 0; i < chunked; ++i) {
      Prefilling& p = prefilling_[i];
      p.prefilled += p.chunk;
      used_ += p.chunk;
      stats_.prefill_tokens += p.chunk;
      if (p.prefilled == reqs_[p.id].input_tokens) {  // the last chunk's logits give the first token
        ++out;
        // Held back a step only where the request lives on here to the next iteration.
        const bool later = role_ == Role::aggregated && reqs_[p.id].output_tokens > 1;
        if (later && cfg_.stream_interval > 1) unseen_.push_back(p.id);  // streamed with a later token
        else (later && cfg_.lagged_first_token ? lagged_ : first_).push_back(p.id);
        ++prompts_done;
      }
    }
    stats_.output_tokens += out;
    ev.output_tokens = out;
    ev.iterations = static_cast<std::uint32_t>(ends_.size());
    ev.iteration_ends = ends_;
    ev.end_s = clock_;
    stats_.kv_used_peak = std::max(stats_.kv_used_peak, used_);
    stats_.kv_reserved_peak = std::max(stats_.kv_reserved_peak, reserved_);
    retire(ended, prompts_done);
    ev.first_tokens = first_;
    ev.finished = finished_;
    return ev;
  }

  double clock_s() const noexcept { return clock_; }
  const WorkerStats& stats() const noexcept { return stats_; }
  std::uint64_t kv_capacity_tokens() const noexcept { return capacity_; }
  std::size_t running() const noexcept { return dec_kv_.size() + prefilling_.size(); }
  std::size_t queued() const noexcept { return queue_.size() - head_; }

  // The state a later step depends on, seen from time t0 with request ids counted from
  // `base`: two workers whose states match serve the same requests alike, shifted in time
  // and ids (serve/simulate_unit.hpp skips the repeated rounds of a closed loop so). Exact
  // quantities go to `ints`, times (less t0) to `times`; ids it holds go to `held`.
  void state(double t0, std::uint32_t base, std::vector<std::int64_t>& ints, std::vector<double>& times,
             std::vector<std::uint32_t>& held) const {
    const auto rel = [base](std::uint32_t id) { return std::int64_t{id} - std::int64_t{base}; };
    // The last launch matters only to a worker still running something (admit()), the front
    // end only where there is one (arrive()).
    const bool front_end = role_ != Role::decode && cfg_.frontend_s > 0;
    times.insert(times.end(), {clock_ - t0, running() > 0 ? formed_s_ - t0 : -1.0,
                               front_end ? frontend_free_s_ - t0 : -1.0});
    ints.insert(ints.end(), {static_cast<std::int64_t>(reserved_), static_cast<std::int64_t>(used_),
                             static_cast<std::int64_t>(prefilling_.size()), static_cast<std::int64_t>(dec_id_.size()),
                             static_cast<std::int64_t>(queued()), static_cast<std::int64_t>(lagged_.size()),
                             static_cast<std::int64_t>(waited_), static_cast<std::int64_t>(recv_count_),
                             static_cast<std::int64_t>(last_prompt_rows_), static_cast<std::int64_t>(unseen_.size())});
    if (cfg_.recv_interval > 1) times.push_back(running() > 0 ? received_s_ - t0 : -1.0);
    if (cfg_.draft_tokens > 0) times.push_back(draft_carry_);  // a fraction of a token, compared as times are
    for (const std::uint32_t id : unseen_) ints.push_back(rel(id));  // held already: a decoder
    for (const Prefilling& p : prefilling_) {
      ints.insert(ints.end(), {rel(p.id), p.prefilled});
      held.push_back(p.id);
    }
    for (std::size_t i = 0; i < dec_id_.size(); ++i) {
      ints.insert(ints.end(), {rel(dec_id_[i]), dec_kv_[i], dec_left_[i]});
      held.push_back(dec_id_[i]);
    }
    for (std::size_t i = head_; i < queue_.size(); ++i) {
      ints.push_back(rel(queue_[i].id));
      times.push_back(queue_[i].at_s - t0);
      held.push_back(queue_[i].id);
    }
    for (const std::uint32_t id : lagged_) ints.push_back(rel(id));  // held already: a decoder
  }

  // Moves the worker `periods` repeats of a cycle on: every time by dt, every id it holds by
  // did, its counters by `periods` × what one repeat added (`per_period`; peaks stay).
  void shift(double dt, std::uint32_t did, const WorkerStats& per_period, std::uint64_t periods) {
    clock_ += dt;
    formed_s_ += dt;
    frontend_free_s_ += dt;
    for (Prefilling& p : prefilling_) p.id += did;
    for (std::uint32_t& id : dec_id_) id += did;
    for (std::size_t i = head_; i < queue_.size(); ++i) {
      queue_[i].id += did;
      queue_[i].at_s += dt;
    }
    for (std::uint32_t& id : lagged_) id += did;
    for (std::uint32_t& id : unseen_) id += did;
    received_s_ += dt;
    stats_.add(per_period, periods);
  }

  // KV tokens request `r` reserves on this worker.
  std::uint64_t footprint(const Request& r) const noexcept {
    const std::uint64_t t = std::uint64_t{r.input_tokens} + (role_ == Role::prefill ? 0 : r.output_tokens);
    return (t + cfg_.kv_block - 1) / cfg_.kv_block * cfg_.kv_block + cfg_.state_tokens;
  }

 private:
  // The running requests are two lists, each in admission order: the decoders, kept as
  // parallel arrays so that an iteration's decode list is a prefix of dec_kv_ as it stands
  // and its bookkeeping a pass of increments (the step used to walk every running request
  // four times, a third of serve_sim's time), and the requests still prefilling. Chunks go
  // to prompts in admission order, so prompts finish in admission order: every decoder was
  // admitted before every request still prefilling, and the decoders' arrays only grow at
  // the back.
  struct Prefilling {
    std::uint32_t id;
    std::uint32_t prefilled = 0;  // prompt tokens whose KV is written
    std::uint32_t chunk = 0;      // this iteration's prefill rows
  };
  struct Queued {
    std::uint32_t id;
    double at_s;
  };

  // The model's time of the batch as it stands (the first `decodes` decoders and chunks_),
  // a decode-only one padded to the next captured CUDA graph, an eager one (prompt rows
  // beyond the captured sizes) at least its host's launch time; the clock moves on.
  void run_iteration(std::size_t decodes, std::uint32_t tokens) {
    std::span<const std::uint32_t> decode_kv(dec_kv_.data(), decodes);
    const std::vector<std::uint32_t>& graphs = cfg_.cuda_graph_batches;
    if (chunks_.empty() && decodes > 0 && !graphs.empty() && decodes <= graphs.back()) {
      const std::uint32_t padded = *std::lower_bound(graphs.begin(), graphs.end(), decodes);
      if (padded > decodes) {  // the captured graph's rows: the batch, then dummy requests
        padded_kv_.assign(dec_kv_.begin(), dec_kv_.begin() + static_cast<std::ptrdiff_t>(decodes));
        padded_kv_.resize(padded, 1);
        decode_kv = padded_kv_;
      }
    }
    // Each decode verifies 1 + draft_tokens rows, at its KV length (a DP-attention arch
    // keeps a request's rows in its group).
    double dt = model_->iteration_s(ops::AttentionBatch{chunks_, decode_kv, 1 + cfg_.draft_tokens});
    if (cfg_.draft_tokens > 0 && decodes > 0) dt *= draft_factor_;  // the draft layers
    if constexpr (CountsLaunches<Model>)
      if (cfg_.eager_launch_s > 0 && !chunks_.empty() && tokens > cfg_.graph_prefill_tokens)
        dt = std::max(dt, model_->launches() * cfg_.eager_launch_s);
    formed_s_ = clock_;  // scheduling ahead, the next batch is formed as this one launches
    clock_ += dt;
    stats_.busy_s += dt;
    ++stats_.iterations;
    stats_.batch_tokens += tokens;
  }

  // The rest of a decode stretch whose first iteration just ran (every decoder in it, none
  // finished, no chunk, no first token): iterations while each starts before horizon_s
  // and before the queue's head could be admitted, the last the one in which the first
  // decoders finish. Returns the tokens they produced and sets `ended` as step()'s
  // single iteration would have after the last of them.
  std::uint32_t stretch(std::size_t decodes, double horizon_s, std::uint32_t& ended) {
    std::uint32_t* left = dec_left_.data();
    std::uint32_t* kv = dec_kv_.data();
    std::uint32_t fewest = ~std::uint32_t{0};  // iterations until the first decoders finish
    costdsl::detail::for_each_index_blocked(decodes,
                                            [&](std::size_t i) { fewest = left[i] < fewest ? left[i] : fewest; });
    walk_unseen([&](std::size_t, std::size_t i) {  // ... or until the next unseen first token streams
      fewest = std::min(fewest, cfg_.stream_interval - produced(i));
    });
    const double until = std::min(horizon_s, next_admission_s());
    std::uint32_t more = 0;
    while (more < fewest && clock_ + same_instant_s < until) {
      run_iteration(decodes, static_cast<std::uint32_t>(decodes));
      ends_.push_back(clock_);
      costdsl::detail::for_each_index_blocked(decodes, [&](std::size_t i) { ++kv[i]; });
      used_ += decodes;
      ++more;
    }
    if (more > 0)
      costdsl::detail::for_each_index_blocked(decodes, [&](std::size_t i) {
        left[i] -= more;
        ended += left[i] == 0 ? 1 : 0;
      });
    return static_cast<std::uint32_t>(decodes) * more;
  }

  // A speculative step's decoders each advance by its accepted tokens (1 + the accepted
  // drafts: whole tokens, the expectation's fraction carried to the next step), none past
  // its last. Returns the tokens they produced; counts in `ended` those that finished.
  std::uint32_t advance_speculative(std::size_t decodes, std::uint32_t& ended) {
    const double reached = draft_carry_ + cfg_.accepted_drafts();
    const auto accepted = static_cast<std::uint32_t>(reached);
    draft_carry_ = reached - accepted;
    const std::uint32_t step = 1 + accepted;
    std::uint32_t out = 0;
    for (std::size_t i = 0; i < decodes; ++i) {
      const std::uint32_t got = std::min(step, dec_left_[i]);
      dec_kv_[i] += got;
      dec_left_[i] -= got;
      ended += dec_left_[i] == 0 ? 1 : 0;
      out += got;
    }
    used_ += out;
    return out;
  }

  // When admit() would next take (or reject) the queue's head, its running set and cache
  // as they stand: never while the batch is full or the head waits for room (only a
  // finish frees either).
  double next_admission_s() const noexcept {
    if (head_ == queue_.size() || running() >= cfg_.max_seqs) return std::numeric_limits<double>::infinity();
    const std::uint64_t need = footprint(reqs_[queue_[head_].id]);
    if (need <= capacity_ && reserved_ + need > capacity_) return std::numeric_limits<double>::infinity();
    return queue_[head_].at_s;
  }

  // Admit in arrival order while the whole footprint fits; a request that would not fit
  // blocks those behind it (FCFS, no skipping), one larger than the cache is rejected.
  void admit() {
    // Requests that had arrived when this iteration's batch was formed: at its start, or,
    // scheduling ahead on a busy engine, at the previous iteration's launch.
    double formed = cfg_.overlap_scheduling && running() > 0 ? formed_s_ : clock_;
    if (cfg_.recv_interval > 1) {  // only what the scheduler has received (ServerConfig::recv_interval)
      recv_count_ = running() == 0 ? cfg_.recv_interval : recv_count_ + (last_prompt_rows_ ? cfg_.recv_interval : 1);
      if (recv_count_ >= cfg_.recv_interval) {
        recv_count_ = 0;
        received_s_ = formed;
      }
      formed = std::min(formed, received_s_);
    }
    while (head_ < queue_.size() && queue_[head_].at_s <= formed + same_instant_s && running() < cfg_.max_seqs) {
      const std::uint32_t id = queue_[head_].id;
      const Request& q = reqs_[id];
      const std::uint64_t need = footprint(q);
      if (need > capacity_) {
        ++stats_.rejected;
        rejected_.push_back(id);
        ++head_;
        continue;
      }
      if (reserved_ + need > capacity_) break;
      reserved_ += need;
      if (role_ == Role::decode) {  // its KV came with it; the prefill worker produced the first token
        used_ += q.input_tokens;
        push_decoder(id, q);
        // Streamed in chunks, that first token goes out with the stream_interval-th.
        if (cfg_.stream_interval > 1 && q.output_tokens > 1) unseen_.push_back(id);
      } else {
        used_ += q.cached_tokens;
        prefilling_.push_back({id, q.cached_tokens, 0});
      }
      admitted_.push_back(id);
      ++head_;
    }
  }

  // A request with its first token out: decodes from the next iteration at KV input + 1,
  // output_tokens - 1 tokens to go.
  void push_decoder(std::uint32_t id, const Request& q) {
    dec_id_.push_back(id);
    dec_kv_.push_back(q.input_tokens + 1);
    dec_left_.push_back(q.output_tokens - 1);
  }

  // Calls f(k, i) for each unseen request: its place k in unseen_ and its decoder's index
  // i. unseen_ and the decoders' arrays are both in admission order, so one merged walk
  // finds them all: O(decoders) a call, not O(unseen × decoders), which a decode worker of
  // thousands of requests streaming in chunks would pay every iteration.
  template <class F>
  void walk_unseen(F&& f) {
    std::size_t i = 0;
    for (std::size_t k = 0; k < unseen_.size(); ++k) {
      while (dec_id_[i] != unseen_[k]) ++i;
      f(k, i);
    }
  }
  // Tokens decoder i has produced, its first included.
  std::uint32_t produced(std::size_t i) const noexcept { return reqs_[dec_id_[i]].output_tokens - dec_left_[i]; }

  // Streams the first tokens whose request reached stream_interval tokens (or its last) with
  // this iteration, in admission order.
  void stream_unseen() {
    std::size_t kept = 0;
    walk_unseen([&](std::size_t k, std::size_t i) {
      const std::uint32_t id = unseen_[k];  // read before a slot at or below k is written
      if (produced(i) >= cfg_.stream_interval || dec_left_[i] == 0) first_.push_back(id);
      else unseen_[kept++] = id;
    });
    unseen_.resize(kept);
  }

  // Ends the requests done on this worker, in admission order: the `ended` decoders whose
  // last token came out, then, of the first `prompts_done` prompts (finished this
  // iteration), those whose first token is their last here (prefill role, or one output
  // token); the other finished prompts become decoders.
  void retire(std::uint32_t ended, std::size_t prompts_done) {
    const auto finish = [&](std::uint32_t id, std::uint64_t generated) {
      const Request& q = reqs_[id];
      finished_.push_back(id);
      reserved_ -= footprint(q);
      used_ -= q.input_tokens + (generated - 1);  // the last token's K/V is never written
    };
    if (ended > 0) {
      // A step ends a few of a few hundred decoders: move the runs between them down, a block
      // copy each, instead of copying every decoder (that loop was a quarter of a step).
      const std::size_t n = dec_kv_.size();
      std::size_t kept = next_ended(0);
      for (std::size_t i = kept; i < n;) {
        finish(dec_id_[i], reqs_[dec_id_[i]].output_tokens);
        const std::size_t run_end = next_ended(i + 1);
        const auto run = [&](std::vector<std::uint32_t>& v) {
          std::copy(v.begin() + static_cast<std::ptrdiff_t>(i + 1), v.begin() + static_cast<std::ptrdiff_t>(run_end),
                    v.begin() + static_cast<std::ptrdiff_t>(kept));
        };
        run(dec_id_);
        run(dec_kv_);
        run(dec_left_);
        kept += run_end - (i + 1);
        i = run_end;
      }
      dec_id_.resize(kept);
      dec_kv_.resize(kept);
      dec_left_.resize(kept);
    }
    for (std::size_t i = 0; i < prompts_done; ++i) {
      const std::uint32_t id = prefilling_[i].id;
      const Request& q = reqs_[id];
      if (role_ == Role::prefill || q.output_tokens == 1) {
        finish(id, 1);
      } else {
        push_decoder(id, q);
      }
    }
    prefilling_.erase(prefilling_.begin(), prefilling_.begin() + static_cast<std::ptrdiff_t>(prompts_done));
  }

  // The first decoder at or after `from` with no tokens left (the size if none): blocks
  // tested with a branch-free loop -O2 vectorises (detail/blocked_loop.hpp), then the one
  // block walked.
  std::size_t next_ended(std::size_t from) const noexcept {
    constexpr std::size_t block = costdsl::detail::vector_block;
    const std::uint32_t* left = dec_left_.data();
    const std::size_t n = dec_left_.size();
    std::size_t i = from;
    for (; i + block <= n; i += block) {
      std::uint32_t any = 0;
      for (std::size_t k = 0; k < block; ++k) any |= left[i + k] == 0 ? 1u : 0u;
      if (any != 0) break;
    }
    while (i < n && left[i] != 0) ++i;
    return i;
  }

  Model* model_;
  std::span<const Request> reqs_;
  ServerConfig cfg_;
  std::uint64_t capacity_;
  Role role_;
  double clock_ = 0;
  double formed_s_ = 0;         // when the last iteration launched (overlap_scheduling)
  std::uint32_t waited_ = 0;    // iterations in a row that held their prompt rows back (batch waiting)
  bool last_prompt_rows_ = false;  // the last iteration ran prompt rows (recv_interval's weight)
  std::uint32_t recv_count_ = 0;   // the scheduler's weighted loops since it last received
  double received_s_ = 0;          // it has received every request that arrived by then
  std::vector<std::uint32_t> unseen_;  // decoders whose first token is not streamed yet (stream_interval)
  double frontend_free_s_ = 0;  // when the front end has passed on the last request
  std::uint64_t reserved_ = 0, used_ = 0;
  std::vector<Prefilling> prefilling_;
  std::vector<std::uint32_t> dec_id_, dec_kv_, dec_left_;  // the decoders, by admission order
  std::vector<std::uint32_t> padded_kv_;                   // a decode batch padded to a CUDA graph
  double draft_factor_ = 1;                                // (layers + draft_tokens) / layers
  double draft_carry_ = 0;                                 // accepted drafts' fraction carried over
  std::vector<double> ends_;                               // the last step's iteration ends
  std::vector<Queued> queue_;
  std::size_t head_ = 0;
  std::vector<ops::PrefillChunk> chunks_;
  std::vector<std::uint32_t> first_, lagged_, finished_, admitted_, rejected_;
  WorkerStats stats_;
};

}  // namespace costdsl::serve
