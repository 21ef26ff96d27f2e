#pragma once
// Worker: one serving engine (one replica's scheduler over its GPUs), advanced one
// scheduler iteration at a time so that several can share a clock (a disaggregated
// deployment's prefill and decode workers, a closed loop of clients).
//
// The model of a server is deliberately small and stated here so the numbers can be
// judged: one FCFS queue; continuous batching with a per-iteration token budget; every
// running request that is decoding gets one token first, then prefill chunks fill what
// is left of the budget (chunked prefill); a request's whole KV footprint (rounded up to
// KV blocks) is reserved when it is admitted, so the cache can never overflow and no
// preemption is needed; the last prefill chunk also yields the first output token. The
// clock moves by the model's time of each iteration: GPU work only, no scheduler or
// sampling overhead.
//
// Roles: `aggregated` runs requests from arrival to their last token (footprint: input
// + output); `prefill` runs a request's prefill only and hands it on with its first
// token (footprint: input); `decode` takes a request whose KV arrived from a prefill
// worker (input written, first token out) and decodes the rest (footprint: input +
// output).
//
// Nothing in step() allocates once the buffers have grown to the batch cap (they are
// reserved up front), and nothing sorts: arrivals are inserted in order when they come.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <vector>

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
};

// What one step() did. An iteration ran over [start_s, end_s] (or, when `iteration` is
// false, the worker only moved its clock to the next arrival). The spans list request
// ids and stay valid until the next step().
struct StepEvents {
  bool iteration = false;
  double start_s = 0, end_s = 0;
  std::uint32_t output_tokens = 0;           // tokens this iteration produced
  std::span<const std::uint32_t> admitted;   // admitted at start_s
  std::span<const std::uint32_t> rejected;   // larger than the whole cache: dropped at start_s
  std::span<const std::uint32_t> first_tokens;  // first token out at end_s
  std::span<const std::uint32_t> finished;   // done on this worker at end_s (prefill role: handed on)
};

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
    const std::size_t seqs = std::min<std::size_t>(cfg.max_seqs, std::max<std::size_t>(requests.size(), 1));
    running_.reserve(seqs);
    chunks_.reserve(seqs);
    decode_kv_.reserve(seqs);
    first_.reserve(seqs);
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
    if (!running_.empty()) return clock_;
    if (head_ < queue_.size()) return std::max(clock_, queue_[head_].at_s);
    return std::numeric_limits<double>::infinity();
  }

  StepEvents step() {
    admitted_.clear();
    rejected_.clear();
    first_.clear();
    finished_.clear();
    admit();
    StepEvents ev;
    ev.admitted = admitted_;
    ev.rejected = rejected_;
    if (running_.empty()) {  // idle: jump to the next arrival
      if (head_ < queue_.size() && queue_[head_].at_s > clock_) {
        clock_ = queue_[head_].at_s;
        ++stats_.idle_gaps;
      }
      ev.start_s = ev.end_s = clock_;
      return ev;
    }

    // Decodes first (latency of requests already streaming), then prefill chunks in admission order.
    chunks_.clear();
    decode_kv_.clear();
    std::uint32_t budget = cfg_.max_batch_tokens;
    for (Running& r : running_) {
      r.chunk = 0;
      r.decoding_now = false;
      if (budget > 0 && r.generated > 0) {
        // The new token's K/V is appended, then attention reads input + all earlier outputs + it.
        decode_kv_.push_back(reqs_[r.id].input_tokens + r.generated);
        r.decoding_now = true;
        --budget;
      }
    }
    for (Running& r : running_) {
      if (budget == 0) break;
      const std::uint32_t left = reqs_[r.id].input_tokens - r.prefilled;
      if (left == 0) continue;
      r.chunk = std::min(left, budget);
      chunks_.push_back({r.prefilled, r.chunk});
      budget -= r.chunk;
    }

    const double dt = model_->iteration_s(ops::AttentionBatch{chunks_, decode_kv_});
    ev.iteration = true;
    ev.start_s = clock_;
    clock_ += dt;
    ev.end_s = clock_;
    stats_.busy_s += dt;
    ++stats_.iterations;
    stats_.batch_tokens += cfg_.max_batch_tokens - budget;
    stats_.batch_peak = std::max(stats_.batch_peak, static_cast<std::uint32_t>(running_.size()));

    // Apply the iteration: written KV, first tokens, finished requests.
    std::uint32_t out = 0;
    for (Running& r : running_) {
      const Request& q = reqs_[r.id];
      if (r.decoding_now) {
        ++r.generated;
        ++used_;  // the previous token's K/V row
        ++out;
      }
      if (r.chunk > 0) {
        r.prefilled += r.chunk;
        used_ += r.chunk;
        stats_.prefill_tokens += r.chunk;
        if (r.prefilled == q.input_tokens) {  // the last chunk's logits give the first token
          r.generated = 1;
          ++out;
          first_.push_back(r.id);
        }
      }
    }
    stats_.output_tokens += out;
    ev.output_tokens = out;
    stats_.kv_used_peak = std::max(stats_.kv_used_peak, used_);
    stats_.kv_reserved_peak = std::max(stats_.kv_reserved_peak, reserved_);
    std::erase_if(running_, [&](const Running& r) {  // stable: keeps admission order for chunking
      const std::uint32_t done_at = role_ == Role::prefill ? 1 : reqs_[r.id].output_tokens;
      if (r.generated < done_at) return false;
      finished_.push_back(r.id);
      reserved_ -= r.reserved;
      used_ -= r.prefilled + (r.generated - 1);  // the last token's K/V is never written
      return true;
    });
    ev.first_tokens = first_;
    ev.finished = finished_;
    return ev;
  }

  double clock_s() const noexcept { return clock_; }
  const WorkerStats& stats() const noexcept { return stats_; }
  std::uint64_t kv_capacity_tokens() const noexcept { return capacity_; }
  std::size_t running() const noexcept { return running_.size(); }
  std::size_t queued() const noexcept { return queue_.size() - head_; }

  // KV tokens request `r` reserves on this worker.
  std::uint64_t footprint(const Request& r) const noexcept {
    const std::uint64_t t = std::uint64_t{r.input_tokens} + (role_ == Role::prefill ? 0 : r.output_tokens);
    return (t + cfg_.kv_block - 1) / cfg_.kv_block * cfg_.kv_block;
  }

 private:
  struct Running {
    std::uint32_t id;
    std::uint32_t prefilled = 0;  // prompt tokens whose KV is written
    std::uint32_t generated = 0;  // output tokens produced so far
    std::uint32_t chunk = 0;      // this iteration's prefill rows (0: none)
    bool decoding_now = false;
    std::uint64_t reserved = 0;   // KV tokens reserved at admission
  };
  struct Queued {
    std::uint32_t id;
    double at_s;
  };

  // Admit in arrival order while the whole footprint fits; a request that would not fit
  // blocks those behind it (FCFS, no skipping), one larger than the cache is rejected.
  void admit() {
    while (head_ < queue_.size() && queue_[head_].at_s <= clock_ && running_.size() < cfg_.max_seqs) {
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
      Running r{id, q.cached_tokens, 0, 0, false, need};
      if (role_ == Role::decode) {  // its KV came with it; the prefill worker produced the first token
        r.prefilled = q.input_tokens;
        r.generated = 1;
      }
      used_ += r.prefilled;
      running_.push_back(r);
      admitted_.push_back(id);
      ++head_;
    }
  }

  Model* model_;
  std::span<const Request> reqs_;
  ServerConfig cfg_;
  std::uint64_t capacity_;
  Role role_;
  double clock_ = 0;
  std::uint64_t reserved_ = 0, used_ = 0;
  std::vector<Running> running_;
  std::vector<Queued> queue_;
  std::size_t head_ = 0;
  std::vector<ops::PrefillChunk> chunks_;
  std::vector<std::uint32_t> decode_kv_;
  std::vector<std::uint32_t> first_, finished_, admitted_, rejected_;
  WorkerStats stats_;
};

}  // namespace costdsl::serve
