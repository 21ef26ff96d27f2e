#pragma once
// The load one deployment unit (an aggregated replica, or a disaggregated group of
// prefill and decode workers) is put under: requests of a fixed length, or of lengths
// drawn up to it (`min_length_ratio`), either a closed loop of clients (each sends its
// next request when the previous one finishes: the "concurrency" of a benchmark) or
// Poisson arrivals at a rate; or a recorded trace, whose requests arrive as recorded
// with their own lengths.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "costdsl/error.hpp"
#include "costdsl/serve/detail/text.hpp"
#include "costdsl/serve/request.hpp"

namespace costdsl::serve {

struct Load {
  enum class Kind : std::uint8_t { closed, open, trace };
  Kind kind = Kind::closed;
  std::uint32_t clients = 1;  // closed: requests in flight, each replaced when it finishes
  // closed: client k sends its first request at k × stagger_s. Spread over about one
  // request's latency, the clients run out of phase, as a steady stream of users does;
  // all at 0 they would stay in lockstep (equal requests finish together, then queue
  // for prefill together, round after round).
  double stagger_s = 0;
  double rate = 0;            // open: mean arrivals per second (Poisson)
  std::uint32_t warmup = 0;   // leading requests run but left out of the statistics
  std::uint32_t measured = 1; // requests in the statistics
  std::uint64_t seed = 1;     // open: the arrival stream
  std::uint32_t input_tokens = 1, output_tokens = 2, cached_tokens = 0;  // closed, open: every request's
  // closed, open: below 1, each request's input and output lengths are drawn apart, each
  // uniform over the integers ⌊ratio · L⌋ .. L (and the input at least cached_tokens + 1),
  // from one stream seeded by `seed`: what `--random-range-ratio` does in the copy of vLLM's
  // benchmark_serving.py InferenceX runs (utils/bench_serving/benchmark_serving.py,
  // sample_random_requests, SemiAnalysisAI/InferenceX at 843c6254; its runs use 0.8;
  // vLLM's own `bench serve` now spreads ±ratio around L instead).
  // Requests that finish apart keep benchmark clients out of lockstep.
  double min_length_ratio = 1;
  // trace: the requests in arrival order (warmup + measured of them), not owned: the
  // caller keeps them alive for the simulation. rate is then their mean arrival rate.
  std::span<const Request> trace;

  std::uint32_t total() const noexcept { return warmup + measured; }
  // Arrivals fixed up front (Poisson or a trace) rather than sent as clients finish.
  bool open_loop() const noexcept { return kind != Kind::closed; }

  void check() const {
    if (measured == 0) throw InputError("load: measured requests must be at least 1");
    if (std::uint64_t{warmup} + measured > 0xfffffffeull) throw InputError("load: too many requests");
    if (kind == Kind::closed && clients == 0) throw InputError("load: a closed loop needs at least 1 client");
    if (!(stagger_s >= 0) || !std::isfinite(stagger_s))
      throw InputError("load: stagger_s " + detail::shortest(stagger_s) + " must be finite and >= 0");
    if (kind == Kind::open && (!(rate > 0) || !std::isfinite(rate)))
      throw InputError("load: rate " + detail::shortest(rate) + " must be a positive finite number");
    if (kind == Kind::trace) {
      if (trace.size() != std::uint64_t{warmup} + measured)
        throw InputError("load: a trace of " + std::to_string(trace.size()) + " requests must be warmup " +
                         std::to_string(warmup) + " + measured " + std::to_string(measured));
      for (std::size_t i = 0; i < trace.size(); ++i) {
        const Request& r = trace[i];
        const std::string at = "load: trace request " + std::to_string(i);
        if (i > 0 && r.arrival_s < trace[i - 1].arrival_s) throw InputError(at + " arrives before the one before it");
        if (r.input_tokens == 0 || r.cached_tokens >= r.input_tokens)
          throw InputError(at + ": input_tokens must be at least 1 and above cached_tokens");
        if (r.output_tokens < 2) throw InputError(at + ": output_tokens must be at least 2 (a TPOT needs a second token)");
      }
      return;
    }
    if (input_tokens == 0) throw InputError("load: input_tokens must be at least 1");
    if (output_tokens < 2) throw InputError("load: output_tokens must be at least 2 (a TPOT needs a second token)");
    if (!(min_length_ratio > 0 && min_length_ratio <= 1))
      throw InputError("load: min_length_ratio " + detail::shortest(min_length_ratio) + " must be in (0, 1]");
    if (shortest_output() < 2)
      throw InputError("load: min_length_ratio " + detail::shortest(min_length_ratio) + " of output_tokens " +
                       std::to_string(output_tokens) + " leaves " + std::to_string(shortest_output()) +
                       " tokens; a TPOT needs a second token");
    if (cached_tokens >= input_tokens)
      throw InputError("load: cached_tokens " + std::to_string(cached_tokens) + " must be below input_tokens " +
                       std::to_string(input_tokens));
  }

  // Every request of a closed or open load has the same lengths.
  bool fixed_lengths() const noexcept { return kind != Kind::trace && min_length_ratio == 1; }
  std::uint32_t shortest_output() const noexcept { return shortest(output_tokens); }

  // The requests, by id. Open loop: arrival times from one seeded stream of unit-mean
  // gaps divided by the rate, so every rate replays the same stream at its own speed.
  // Closed loop: the clients' first requests at k × stagger_s, later ones set as clients
  // send. Lengths below 1's ratio from their own stream (the arrivals' is not disturbed),
  // request by request as benchmark_serving.py samples them: every input, then every output.
  // Trace: a copy of it.
  std::vector<Request> requests() const {
    check();
    if (kind == Kind::trace) return {trace.begin(), trace.end()};
    std::vector<Request> out(total(), Request{0, input_tokens, output_tokens, cached_tokens});
    if (!fixed_lengths()) {
      std::mt19937_64 lengths(seed ^ 0x9e3779b97f4a7c15ull);
      std::uniform_int_distribution<std::uint32_t> in(std::max(shortest(input_tokens), cached_tokens + 1), input_tokens);
      std::uniform_int_distribution<std::uint32_t> out_len(shortest_output(), output_tokens);
      for (Request& r : out) r.input_tokens = in(lengths);
      for (Request& r : out) r.output_tokens = out_len(lengths);
    }
    if (kind == Kind::closed) {
      for (std::uint32_t k = 0; k < clients && k < out.size(); ++k) out[k].arrival_s = k * stagger_s;
    } else {
      std::mt19937_64 rng(seed);
      std::exponential_distribution<double> gap(1.0);
      double t = 0;
      for (Request& r : out) {
        t += gap(rng);
        r.arrival_s = t / rate;
      }
    }
    return out;
  }

 private:
  std::uint32_t shortest(std::uint32_t tokens) const noexcept {
    return static_cast<std::uint32_t>(std::floor(min_length_ratio * tokens));
  }
};

}  // namespace costdsl::serve
