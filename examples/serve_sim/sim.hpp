#pragma once
// serve_sim core: an iteration-level serving simulator over a static costdsl arch.
//
// The model of a server is deliberately small and stated here so the numbers can be
// judged: one FCFS queue; continuous batching with a per-iteration token budget; every
// running request that is decoding gets one token first, then prefill chunks fill what
// is left of the budget (chunked prefill); a request's whole KV footprint (input +
// output, rounded up to KV blocks) is reserved when it is admitted, so the cache can
// never overflow and no preemption is needed; the last prefill chunk also yields the
// first output token (its TTFT). The clock moves by the costdsl time of each iteration's
// tree: the GPU work only, no scheduler or sampling overhead.
#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "costdsl/costdsl.hpp"
#include "costdsl/archs/llama3.hpp"
#include "costdsl/error.hpp"

namespace serve_sim {

struct Request {
  double arrival_s = 0;
  std::uint32_t input_tokens = 0;
  std::uint32_t output_tokens = 0;  // includes the first token, which the prefill produces
};

// ---------------------------------------------------------------------------- workloads

enum class LengthDist { lognormal, uniform };

struct SyntheticWorkload {
  std::size_t requests = 1000;
  double rate = 150;  // mean arrivals per second (Poisson process)
  std::uint64_t seed = 1;
  LengthDist dist = LengthDist::lognormal;
  double input_median = 256, output_median = 128;
  double sigma = 0.8;            // lognormal shape; uniform spans [1, 2*median - 1] (mean == median)
  std::uint32_t max_len = 8192;  // clamp per field, so a heavy tail cannot exceed the context length
};

// Seeded: the same flags give the same requests on the same standard library.
inline std::vector<Request> generate(const SyntheticWorkload& w) {
  if (w.rate <= 0) throw costdsl::InputError(fmt::format("--rate must be positive, got {}", w.rate));
  std::mt19937_64 rng(w.seed);
  std::exponential_distribution<double> gap(w.rate);
  auto draw = [&](double median) -> std::uint32_t {
    double x = 0;
    if (w.dist == LengthDist::lognormal) {
      x = std::lognormal_distribution<double>(std::log(median), w.sigma)(rng);
    } else {
      x = std::uniform_real_distribution<double>(1.0, 2.0 * median)(rng);
    }
    return static_cast<std::uint32_t>(std::clamp(std::llround(x), 1LL, static_cast<long long>(w.max_len)));
  };
  std::vector<Request> out;
  out.reserve(w.requests);
  double t = 0;
  for (std::size_t i = 0; i < w.requests; ++i) {
    t += gap(rng);
    const std::uint32_t in = draw(w.input_median);
    out.push_back({t, in, draw(w.output_median)});
  }
  return out;
}

namespace detail {
template <class T>
T parse_field(std::string_view s, const std::string& where, std::string_view column) {
  T v{};
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc{} || end != s.data() + s.size())
    throw costdsl::InputError(fmt::format("{}: {} '{}' is not a valid {}", where, column, s,
                                          std::is_integral_v<T> ? "non-negative integer" : "number"));
  return v;
}
}  // namespace detail

// A CSV trace: header `arrival_s,input_tokens,output_tokens`, one request per line, arrivals
// non-decreasing. Strict: anything else is an InputError naming file:line.
inline std::vector<Request> parse_trace(std::istream& in, const std::string& name) {
  std::vector<Request> out;
  std::string line;
  std::size_t lineno = 0;
  auto strip_cr = [](std::string& s) {
    if (!s.empty() && s.back() == '\r') s.pop_back();
  };
  if (!std::getline(in, line)) throw costdsl::InputError(name + ":1: empty trace (expected a header line)");
  ++lineno;
  strip_cr(line);
  if (line != "arrival_s,input_tokens,output_tokens")
    throw costdsl::InputError(fmt::format("{}:1: header must be 'arrival_s,input_tokens,output_tokens', got '{}'",
                                          name, line));
  while (std::getline(in, line)) {
    ++lineno;
    strip_cr(line);
    const std::string where = fmt::format("{}:{}", name, lineno);
    if (line.empty()) throw costdsl::InputError(where + ": empty line");
    std::string_view rest = line;
    std::string_view f[3];
    for (int i = 0; i < 3; ++i) {
      const auto comma = rest.find(',');
      if ((i < 2) != (comma != std::string_view::npos))
        throw costdsl::InputError(fmt::format("{}: expected 3 comma-separated fields, got '{}'", where, line));
      f[i] = rest.substr(0, comma);
      rest = i < 2 ? rest.substr(comma + 1) : std::string_view{};
    }
    Request r{detail::parse_field<double>(f[0], where, "arrival_s"),
              detail::parse_field<std::uint32_t>(f[1], where, "input_tokens"),
              detail::parse_field<std::uint32_t>(f[2], where, "output_tokens")};
    if (!std::isfinite(r.arrival_s) || r.arrival_s < 0)
      throw costdsl::InputError(fmt::format("{}: arrival_s {} must be finite and >= 0", where, f[0]));
    if (!out.empty() && r.arrival_s < out.back().arrival_s)
      throw costdsl::InputError(fmt::format("{}: arrival_s {} is earlier than the previous line's {}", where, f[0],
                                            out.back().arrival_s));
    if (r.input_tokens == 0 || r.output_tokens == 0)
      throw costdsl::InputError(where + ": input_tokens and output_tokens must be at least 1");
    out.push_back(r);
  }
  if (out.empty()) throw costdsl::InputError(name + ": trace has a header but no requests");
  return out;
}

inline std::vector<Request> load_trace(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw costdsl::InputError(path + ": cannot open trace");
  return parse_trace(in, path);
}

// ---------------------------------------------------------------------------- server model

struct ServerConfig {
  std::uint32_t max_batch_tokens = 8192;  // new tokens (decodes + prefill chunk rows) per iteration
  std::uint32_t max_seqs = 256;           // running requests at most (a CUDA-graph / scheduler limit)
  std::uint32_t kv_block = 16;            // KV page size in tokens; reservations round up to it
  double reserve_fraction = 0.10;         // of HBM: activations, workspace, fragmentation
};

// KV capacity in tokens on one GPU (all ranks hold the same share of every token under TP).
struct KvBudget {
  double hbm_bytes = 0, weight_bytes = 0, reserve_bytes = 0, bytes_per_token = 0;
  std::uint64_t tokens = 0;
};

template <class Arch>
KvBudget kv_budget(const Arch& arch, const costdsl::GpuSpec& gpu, const ServerConfig& cfg) {
  KvBudget b{gpu.hbm_capacity, arch.weight_bytes_per_gpu(), cfg.reserve_fraction * gpu.hbm_capacity,
             arch.kv_bytes_per_token_per_gpu(), 0};
  const double free = b.hbm_bytes - b.weight_bytes - b.reserve_bytes;
  if (free <= 0)
    throw costdsl::InputError(fmt::format("weights ({:.1f} GB/GPU) and reserve ({:.1f} GB) exceed {} HBM ({:.1f} GB)",
                                          b.weight_bytes / 1e9, b.reserve_bytes / 1e9, gpu.name, b.hbm_bytes / 1e9));
  // Whole blocks only: a partial block cannot hold a page.
  b.tokens = static_cast<std::uint64_t>(free / b.bytes_per_token) / cfg.kv_block * cfg.kv_block;
  return b;
}

struct Percentiles {
  double p50 = 0, p90 = 0, p99 = 0, mean = 0;
};

// Nearest-rank percentiles; sorts `v` in place (called once per metric, after the run).
inline Percentiles percentiles(std::vector<double>& v) {
  Percentiles p;
  if (v.empty()) return p;
  std::sort(v.begin(), v.end());
  auto rank = [&](double q) {
    const auto k = static_cast<std::size_t>(std::ceil(q * static_cast<double>(v.size())));
    return v[std::max<std::size_t>(k, 1) - 1];
  };
  double sum = 0;
  for (double x : v) sum += x;
  return {rank(0.50), rank(0.90), rank(0.99), sum / static_cast<double>(v.size())};
}

struct Result {
  std::size_t requests = 0, completed = 0, rejected = 0;  // rejected: footprint larger than the whole cache
  std::uint64_t iterations = 0, idle_gaps = 0;
  std::uint64_t prefill_tokens = 0, output_tokens = 0;
  double sim_time_s = 0;  // clock when the last request finished
  double busy_s = 0;      // Σ iteration times
  Percentiles ttft_s, tpot_s, e2e_s, queue_s;
  double kv_reserved_peak = 0, kv_used_peak = 0;  // fractions of the KV capacity
  std::uint32_t batch_peak = 0;                   // running requests at most
  double mean_batch_tokens = 0;
  double wall_s = 0;  // the simulation loop's own wall time
  bool ttft_le_e2e = true;  // per request, checked as they finish
};

// One simulation. Arch is a static costdsl arch (build(timing) and inputs(Iteration)).
template <class Arch>
Result simulate(const Arch& arch, const costdsl::Timing& timing, const std::vector<Request>& reqs,
                const ServerConfig& cfg, std::uint64_t kv_capacity_tokens) {
  using costdsl::ops::PrefillChunk;
  if (cfg.max_batch_tokens == 0 || cfg.max_seqs == 0 || cfg.kv_block == 0)
    throw costdsl::InputError("--max-batch-tokens, --max-seqs and --kv-block must be at least 1");
  const auto tree = arch.build(timing);  // built once; each iteration only evaluates it

  struct Running {
    std::uint32_t id;
    std::uint32_t prefilled = 0;  // prompt tokens whose KV is written
    std::uint32_t generated = 0;  // output tokens produced so far
    std::uint32_t chunk = 0;      // this iteration's prefill rows (0: none)
    bool decoding_now = false;
    std::uint64_t reserved = 0;   // KV tokens reserved at admission
  };
  auto footprint = [&](const Request& r) {
    const std::uint64_t t = std::uint64_t{r.input_tokens} + r.output_tokens;
    return (t + cfg.kv_block - 1) / cfg.kv_block * cfg.kv_block;
  };

  Result res;
  res.requests = reqs.size();
  std::vector<double> ttft, tpot, e2e, queue;
  for (auto* v : {&ttft, &tpot, &e2e, &queue}) v->reserve(reqs.size());
  std::vector<double> first_token_s(reqs.size(), 0);
  // Reused every iteration: the inner loop allocates nothing once these have grown.
  std::vector<Running> running;
  std::vector<PrefillChunk> chunks;
  std::vector<std::uint32_t> decode_kv;
  running.reserve(cfg.max_seqs);
  chunks.reserve(cfg.max_seqs);
  decode_kv.reserve(cfg.max_seqs);

  std::size_t next = 0;  // first request not yet admitted (FCFS: admission is in arrival order)
  std::uint64_t reserved = 0, used = 0, batch_tokens_sum = 0;
  double clock = 0;
  const auto wall0 = std::chrono::steady_clock::now();

  while (next < reqs.size() || !running.empty()) {
    // Admit in arrival order while the whole footprint fits; a request that would not fit
    // blocks those behind it (FCFS, no skipping), one larger than the cache is rejected.
    while (next < reqs.size() && reqs[next].arrival_s <= clock && running.size() < cfg.max_seqs) {
      const std::uint64_t need = footprint(reqs[next]);
      if (need > kv_capacity_tokens) {
        ++res.rejected;
        ++next;
        continue;
      }
      if (reserved + need > kv_capacity_tokens) break;
      reserved += need;
      queue.push_back(clock - reqs[next].arrival_s);
      running.push_back({static_cast<std::uint32_t>(next), 0, 0, 0, false, need});
      ++next;
    }
    if (running.empty()) {  // idle: jump to the next arrival
      if (next < reqs.size()) {
        clock = std::max(clock, reqs[next].arrival_s);
        ++res.idle_gaps;
      }
      continue;
    }

    // Decodes first (latency of requests already streaming), then prefill chunks in admission order.
    chunks.clear();
    decode_kv.clear();
    std::uint32_t budget = cfg.max_batch_tokens;
    for (Running& r : running) {
      r.chunk = 0;
      r.decoding_now = false;
      if (budget > 0 && r.generated > 0) {
        // The new token's K/V is appended, then attention reads input + all earlier outputs + it.
        decode_kv.push_back(reqs[r.id].input_tokens + r.generated);
        r.decoding_now = true;
        --budget;
      }
    }
    for (Running& r : running) {
      if (budget == 0) break;
      const std::uint32_t left = reqs[r.id].input_tokens - r.prefilled;
      if (left == 0) continue;
      r.chunk = std::min(left, budget);
      chunks.push_back({r.prefilled, r.chunk});
      budget -= r.chunk;
    }

    const costdsl::Metrics m = costdsl::evaluate(tree, arch.inputs(costdsl::archs::Iteration{chunks, decode_kv}));
    clock += m.time_s;
    res.busy_s += m.time_s;
    ++res.iterations;
    batch_tokens_sum += cfg.max_batch_tokens - budget;
    res.batch_peak = std::max(res.batch_peak, static_cast<std::uint32_t>(running.size()));

    // Apply the iteration: written KV, first tokens, finished requests.
    for (Running& r : running) {
      const Request& q = reqs[r.id];
      if (r.decoding_now) {
        ++r.generated;
        ++used;  // the previous token's K/V row
        ++res.output_tokens;
      }
      if (r.chunk > 0) {
        r.prefilled += r.chunk;
        used += r.chunk;
        res.prefill_tokens += r.chunk;
        if (r.prefilled == q.input_tokens) {  // the last chunk's logits give the first token
          r.generated = 1;
          ++res.output_tokens;
          first_token_s[r.id] = clock;
          ttft.push_back(clock - q.arrival_s);
        }
      }
    }
    res.kv_used_peak = std::max(res.kv_used_peak, static_cast<double>(used));
    res.kv_reserved_peak = std::max(res.kv_reserved_peak, static_cast<double>(reserved));
    std::erase_if(running, [&](const Running& r) {  // stable: keeps admission order for chunking
      const Request& q = reqs[r.id];
      if (r.generated < q.output_tokens) return false;
      const double total = clock - q.arrival_s, first = first_token_s[r.id] - q.arrival_s;
      e2e.push_back(total);
      if (q.output_tokens > 1) tpot.push_back((total - first) / (q.output_tokens - 1));
      res.ttft_le_e2e = res.ttft_le_e2e && first <= total;
      reserved -= r.reserved;
      used -= r.prefilled + (r.generated - 1);  // the last token's K/V is never written
      ++res.completed;
      return true;
    });
  }

  res.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  res.sim_time_s = clock;
  res.mean_batch_tokens = res.iterations ? static_cast<double>(batch_tokens_sum) / res.iterations : 0;
  res.kv_used_peak /= static_cast<double>(kv_capacity_tokens);
  res.kv_reserved_peak /= static_cast<double>(kv_capacity_tokens);
  res.ttft_s = percentiles(ttft);
  res.tpot_s = percentiles(tpot);
  res.e2e_s = percentiles(e2e);
  res.queue_s = percentiles(queue);
  return res;
}

}  // namespace serve_sim
