// The serving engine (costdsl/serve): trace parsing, KV admission, and that the clock is
// exactly the sum of costdsl's iteration times.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <set>
#include <sstream>
#include <vector>

#include "../core/alloc_counter.hpp"
#include "costdsl/archs/llama3.hpp"
#include "costdsl/load_timing.hpp"
#include "costdsl/serve/arch_model.hpp"
#include "costdsl/serve/kv_budget.hpp"
#include "costdsl/serve/load.hpp"
#include "costdsl/serve/simulate_unit.hpp"
#include "costdsl/serve/worker.hpp"
#include "costdsl/serve/simulate.hpp"
#include "costdsl/serve/synthetic_workload.hpp"
#include "costdsl/serve/trace.hpp"

using namespace costdsl;
using namespace costdsl::archs;

namespace {
using Arch = Llama3<Fixed<deploy(llama3_8b)>>;
const Timing& timing() {
  static const Timing t = load_timing("h200", TimingMode::roofline);
  return t;
}
// The synthetic workload's default lengths, `n` requests arriving at `rate` per second.
std::vector<serve::Request> poisson_requests(std::size_t n, double rate) {
  serve::SyntheticWorkload w;
  w.requests = n;
  w.rate = rate;
  return w.generate();
}
std::vector<serve::Request> parse(const std::string& text) {
  std::istringstream in(text);
  return serve::parse_trace(in, "t.csv");
}
}  // namespace

TEST_CASE("trace parsing is strict and names file:line") {
  const auto r = parse("arrival_s,input_tokens,output_tokens\n0,10,2\r\n0.5,7,1\n");
  REQUIRE(r.size() == 2);
  CHECK(r[1].arrival_s == 0.5);
  CHECK(r[1].input_tokens == 7);
  CHECK_THROWS_WITH_AS(parse("a,b,c\n"), "t.csv:1: header must be 'arrival_s,input_tokens,output_tokens', got 'a,b,c'",
                       InputError);
  const std::string h = "arrival_s,input_tokens,output_tokens\n";
  CHECK_THROWS_WITH_AS(parse(h + "0,1,1\n0,-3,1\n"), "t.csv:3: input_tokens '-3' is not a valid non-negative integer",
                       InputError);
  CHECK_THROWS_WITH_AS(parse(h + "0,1\n"), "t.csv:2: expected 3 comma-separated fields, got '0,1'", InputError);
  CHECK_THROWS_WITH_AS(parse(h + "0,1,1,1\n"), "t.csv:2: expected 3 comma-separated fields, got '0,1,1,1'",
                       InputError);
  CHECK_THROWS_WITH_AS(parse(h + "1,1,1\n0.5,1,1\n"), "t.csv:3: arrival_s 0.5 is earlier than the previous line's 1",
                       InputError);
  CHECK_THROWS_WITH_AS(parse(h + "0,0,1\n"), "t.csv:2: input_tokens and output_tokens must be at least 1", InputError);
  CHECK_THROWS_WITH_AS(parse(h + "0,1,1\n\n"), "t.csv:3: empty line", InputError);
  CHECK_THROWS_WITH_AS(parse(h + "x,1,1\n"), "t.csv:2: arrival_s 'x' is not a valid number", InputError);
  CHECK_THROWS_AS(parse(h), InputError);
}

TEST_CASE("one request: TTFT is its prefill chunks, e2e adds each decode, all from evaluate()") {
  const Arch arch;
  const auto tree = arch.build(timing());
  serve::ServerConfig cfg;
  cfg.max_batch_tokens = 8192;
  const std::vector<serve::Request> reqs{{0.0, 10000, 3}};
  const auto r = serve::simulate(arch, timing(), reqs, cfg, 1'000'000);
  auto t = [&](std::vector<ops::PrefillChunk> p, std::vector<std::uint32_t> d) {
    return evaluate(tree, arch.inputs(Iteration{p, d})).time_s;
  };
  // 10000 prompt tokens in two chunks under an 8192 budget; then two decodes at KV 10001, 10002.
  const double ttft = t({{0, 8192}}, {}) + t({{8192, 1808}}, {});
  const double e2e = ttft + t({}, {10001}) + t({}, {10002});
  CHECK(r.iterations == 4);
  CHECK(r.completed == 1);
  CHECK(r.ttft_s.p50 == doctest::Approx(ttft).epsilon(1e-12));
  CHECK(r.e2e_s.p50 == doctest::Approx(e2e).epsilon(1e-12));
  CHECK(r.tpot_s.p50 == doctest::Approx((e2e - ttft) / 2).epsilon(1e-12));
  CHECK(r.prefill_tokens == 10000);
  CHECK(r.output_tokens == 3);
}

TEST_CASE("a run with the analytic memo is the run without it, figure for figure") {
  const auto reqs = poisson_requests(600, 120);
  serve::ServerConfig cfg;
  cfg.max_batch_tokens = 2048;
  const auto run = [&](const Timing& t) { return serve::simulate(Arch{}, t, reqs, cfg, 200'000); };
  const serve::SimResult a = run(timing()), b = run(timing().with_analytic_memo(0));
  REQUIRE(a.iterations > 1000);
  CHECK(a.iterations == b.iterations);
  CHECK(a.sim_time_s == b.sim_time_s);  // every iteration time added, bit for bit
  CHECK(a.busy_s == b.busy_s);
  for (const auto& [x, y] : {std::pair{a.ttft_s, b.ttft_s}, std::pair{a.tpot_s, b.tpot_s}, std::pair{a.e2e_s, b.e2e_s}}) {
    CHECK(x.p50 == y.p50);
    CHECK(x.p99 == y.p99);
    CHECK(x.mean == y.mean);
  }
}

namespace {

// The scheduling rules of worker.hpp written the plain way: one list of running requests in
// admission order, walked for the decodes, again for the chunks, again to apply the
// iteration and once more to drop the finished. serve::Worker keeps its decoders in arrays
// instead; on any workload the two must agree step for step.
class ReferenceWorker {
 public:
  ReferenceWorker(std::span<const serve::Request> reqs, const serve::ServerConfig& cfg, std::uint64_t capacity,
                  serve::Role role)
      : reqs_(reqs), cfg_(cfg), capacity_(capacity), role_(role) {}

  void arrive(std::uint32_t id, double at_s) {
    if (role_ != serve::Role::decode && cfg_.frontend_s > 0)
      at_s = frontend_s_ = std::max(at_s, frontend_s_) + cfg_.frontend_s;
    queue_.push_back({id, at_s});
    for (std::size_t i = queue_.size() - 1; i > head_ && queue_[i - 1].at_s > at_s; --i) std::swap(queue_[i - 1], queue_[i]);
  }
  double next_event_s() const {
    if (!running_.empty()) return clock_;
    if (head_ < queue_.size()) return std::max(clock_, queue_[head_].at_s);
    return std::numeric_limits<double>::infinity();
  }

  struct Step {
    bool iteration = false;
    double start_s = 0, end_s = 0;
    std::uint32_t output_tokens = 0;
    std::vector<std::uint32_t> admitted, rejected, first_tokens, finished;
    std::vector<ops::PrefillChunk> prefill;
    std::vector<std::uint32_t> decode_kv;
    std::uint32_t held_back = 0;  // decoders that did not decode
    bool held_prompts = false;    // batch waiting kept the prompt rows out
  };

  // `time` gives an iteration's length from its batch, as a model would.
  template <class Time>
  Step step(Time&& time) {
    Step ev;
    ev.first_tokens.swap(lagged_);
    // Scheduling ahead, a busy engine's batch was formed when the last iteration launched.
    double formed = cfg_.overlap_scheduling && !running_.empty() ? launched_ : clock_;
    if (cfg_.recv_interval > 1) {  // a busy scheduler receives once its weighted loop count reaches the interval
      recv_count_ = running_.empty() ? cfg_.recv_interval : recv_count_ + (last_prompt_rows_ ? cfg_.recv_interval : 1);
      if (recv_count_ >= cfg_.recv_interval) {
        recv_count_ = 0;
        received_ = formed;
      }
      formed = std::min(formed, received_);
    }
    constexpr double instant = serve::same_instant_s;
    while (head_ < queue_.size() && queue_[head_].at_s <= formed + instant && running_.size() < cfg_.max_seqs) {
      const serve::Request& q = reqs_[queue_[head_].id];
      const std::uint64_t need = footprint(q);
      if (need > capacity_) {
        ev.rejected.push_back(queue_[head_++].id);
        continue;
      }
      if (reserved_ + need > capacity_) break;
      reserved_ += need;
      Running r{queue_[head_].id, q.cached_tokens, 0, 0, false, false};
      // A decode worker's first token came from the prefill worker; streamed in chunks, the
      // client sees it with the stream_interval-th.
      if (role_ == serve::Role::decode)
        r.prefilled = q.input_tokens, r.generated = 1, r.seen = cfg_.stream_interval <= 1 || q.output_tokens <= 1;
      used_ += r.prefilled;
      running_.push_back(r);
      ev.admitted.push_back(queue_[head_++].id);
    }
    if (running_.empty()) {
      if (head_ < queue_.size() && queue_[head_].at_s > clock_ + instant) clock_ = queue_[head_].at_s;
      ev.start_s = ev.end_s = clock_;
      return ev;
    }
    std::uint32_t budget = cfg_.max_batch_tokens;
    const bool prompt_pending = std::any_of(running_.begin(), running_.end(),
                                            [&](const Running& r) { return r.prefilled < reqs_[r.id].input_tokens; });
    const bool prefill_only = cfg_.batching == serve::Batching::prefill_first && prompt_pending;
    for (Running& r : running_) {
      r.chunk = 0;
      r.decoding = !prefill_only && budget > 0 && r.generated > 0;
      if (r.decoding) ev.decode_kv.push_back(reqs_[r.id].input_tokens + r.generated), --budget;
      ev.held_back += r.generated > 0 && !r.decoding;
    }
    for (Running& r : running_) {
      const std::uint32_t left = reqs_[r.id].input_tokens - r.prefilled;
      if (budget == 0 || left == 0) continue;
      if (!cfg_.chunked_prefill && left > budget) break;
      r.chunk = std::min(left, budget);
      ev.prefill.push_back({r.prefilled, r.chunk});
      budget -= r.chunk;
    }
    // Batch waiting: with decodes beside them, prompt rows wait until batch_wait_iters
    // iterations have held them or the iteration's tokens reach the ratio of the budget.
    if (cfg_.batch_wait_iters > 0 && !ev.prefill.empty() && !ev.decode_kv.empty()) {
      const bool full = cfg_.max_batch_tokens - budget >= cfg_.batch_wait_tokens_ratio * cfg_.max_batch_tokens;
      if (waited_ >= cfg_.batch_wait_iters || full) {
        waited_ = 0;
      } else {
        ++waited_;
        ev.held_prompts = true;
        ev.prefill.clear();
        for (Running& r : running_) r.chunk = 0;
      }
    }
    last_prompt_rows_ = !ev.prefill.empty();
    ev.iteration = true;
    ev.start_s = clock_;
    const auto& graphs = cfg_.cuda_graph_batches;  // a decode-only batch runs at the next captured size
    if (ev.prefill.empty() && !ev.decode_kv.empty() && !graphs.empty() && ev.decode_kv.size() <= graphs.back())
      for (const std::uint32_t g : graphs)
        if (g >= ev.decode_kv.size()) {
          ev.decode_kv.resize(g, 1);
          break;
        }
    launched_ = clock_;
    clock_ += time(ops::AttentionBatch{ev.prefill, ev.decode_kv});
    ev.end_s = clock_;
    for (Running& r : running_) {
      if (r.decoding) ++r.generated, ++used_, ++ev.output_tokens;
      r.prefilled += r.chunk;
      used_ += r.chunk;
      const std::uint32_t out = reqs_[r.id].output_tokens;
      if (r.chunk > 0 && r.prefilled == reqs_[r.id].input_tokens) {
        r.generated = 1;
        ++ev.output_tokens;
        const bool later = role_ == serve::Role::aggregated && out > 1;
        if (later && cfg_.stream_interval > 1) continue;  // streamed with its stream_interval-th token
        r.seen = true;
        (later && cfg_.lagged_first_token ? lagged_ : ev.first_tokens).push_back(r.id);
      } else if (!r.seen && r.generated > 0 && (r.generated >= cfg_.stream_interval || r.generated == out)) {
        r.seen = true;
        ev.first_tokens.push_back(r.id);
      }
    }
    used_peak_ = std::max(used_peak_, used_);
    std::erase_if(running_, [&](const Running& r) {
      const serve::Request& q = reqs_[r.id];
      if (r.generated < (role_ == serve::Role::prefill ? 1 : q.output_tokens)) return false;
      ev.finished.push_back(r.id);
      reserved_ -= footprint(q);
      used_ -= r.prefilled + (r.generated - 1);
      return true;
    });
    return ev;
  }
  std::uint64_t used_peak() const { return used_peak_; }

 private:
  struct Running {
    std::uint32_t id, prefilled, generated, chunk;
    bool decoding, seen;  // seen: its first token is out
  };
  struct Queued {
    std::uint32_t id;
    double at_s;
  };
  std::uint64_t footprint(const serve::Request& r) const {
    const std::uint64_t t = std::uint64_t{r.input_tokens} + (role_ == serve::Role::prefill ? 0 : r.output_tokens);
    return (t + cfg_.kv_block - 1) / cfg_.kv_block * cfg_.kv_block;
  }
  std::span<const serve::Request> reqs_;
  serve::ServerConfig cfg_;
  std::uint64_t capacity_, reserved_ = 0, used_ = 0, used_peak_ = 0;
  serve::Role role_;
  double clock_ = 0, frontend_s_ = 0, launched_ = 0;
  std::uint32_t waited_ = 0, recv_count_ = 0;
  bool last_prompt_rows_ = false;
  double received_ = 0;
  std::vector<Running> running_;
  std::vector<std::uint32_t> lagged_;
  std::vector<Queued> queue_;
  std::size_t head_ = 0;
};

// A model whose iteration time depends on every chunk and every decode length, in order,
// and which keeps the batches it was handed.
struct RecordingModel {
  std::vector<std::vector<ops::PrefillChunk>> prefill;
  std::vector<std::vector<std::uint32_t>> decode_kv;
  static double time(const ops::AttentionBatch& b) {
    std::uint64_t h = 1469598103934665603ull;
    for (const auto& c : b.prefill) h = (h ^ (std::uint64_t{c.prefix_len} << 32 | c.append_len)) * 1099511628211ull;
    for (const std::uint32_t kv : b.decode_kv) h = (h ^ kv) * 1099511628211ull;
    return 1e-3 + static_cast<double>(h % 1000) * 1e-6;
  }
  double iteration_s(const ops::AttentionBatch& b) {
    prefill.emplace_back(b.prefill.begin(), b.prefill.end());
    decode_kv.emplace_back(b.decode_kv.begin(), b.decode_kv.end());
    return time(b);
  }
  double kv_bytes_per_token_per_gpu() const { return 1; }
  double weight_bytes_per_gpu() const { return 0; }
  std::uint32_t layers() const { return 4; }  // a speculative step's draft layers add a quarter each
};

// One client sending one measured request of these lengths (a closed loop), and the model's
// time of one iteration by its chunks and decode lengths.
serve::Load one_request(std::uint32_t input_tokens, std::uint32_t output_tokens) {
  serve::Load load;
  load.kind = serve::Load::Kind::closed;
  load.clients = 1;
  load.measured = 1;
  load.input_tokens = input_tokens;
  load.output_tokens = output_tokens;
  return load;
}
template <class Model>
auto iteration_of(Model& model) {
  return [&model](std::vector<ops::PrefillChunk> p, std::vector<std::uint32_t> d) { return model.iteration_s({p, d}); };
}

bool same_chunks(const std::vector<ops::PrefillChunk>& a, std::span<const ops::PrefillChunk> b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](const auto& x, const auto& y) {
           return x.prefix_len == y.prefix_len && x.append_len == y.append_len;
         });
}
bool same_ids(const std::vector<std::uint32_t>& a, std::span<const std::uint32_t> b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end());
}

// A random engine: a token budget in [lo_tokens, hi_tokens], batch cap, block, both batching
// policies, chunked or whole prompts, [a front end], lagged first tokens, scheduling ahead,
// CUDA-graph padding, batch waiting, receiving every few loops, streaming every few tokens.
template <class Pick>
serve::ServerConfig random_server(Pick& pick, std::uint32_t lo_tokens, std::uint32_t hi_tokens, bool front_end) {
  serve::ServerConfig cfg;
  cfg.max_batch_tokens = pick(lo_tokens, hi_tokens);
  cfg.max_seqs = pick(1, 48);
  cfg.kv_block = pick(1, 32);
  cfg.batching = pick(0, 1) == 0 ? serve::Batching::mixed : serve::Batching::prefill_first;
  cfg.chunked_prefill = pick(0, 2) != 0;
  if (front_end) cfg.frontend_s = pick(0, 2) * 1e-3;
  cfg.lagged_first_token = pick(0, 1) == 1;
  cfg.overlap_scheduling = pick(0, 1) == 1;
  if (pick(0, 2) == 0) cfg.cuda_graph_batches = {1, 2, 4, 8, 16, 24, 32};
  if (pick(0, 3) == 0) {
    cfg.batch_wait_iters = pick(1, 6);
    cfg.batch_wait_tokens_ratio = pick(0, 10) / 10.0;
  }
  if (pick(0, 3) == 0) cfg.recv_interval = pick(2, 8);
  if (!cfg.lagged_first_token && pick(0, 2) == 0) cfg.stream_interval = pick(2, 12);
  return cfg;
}

}  // namespace

TEST_CASE("the worker schedules step for step as the plain four-pass scheduler, on random workloads and roles") {
  std::mt19937_64 rng(20261203);
  auto pick = [&](std::uint32_t lo, std::uint32_t hi) { return std::uniform_int_distribution<std::uint32_t>(lo, hi)(rng); };
  std::uint64_t steps = 0, budget_bound = 0, one_token = 0, out_of_order = 0, prefill_only = 0, paused = 0,
                padded = 0, waited = 0, streaming = 0, receiving = 0;
  for (int trial = 0; trial < 300; ++trial) {
    const auto role = static_cast<serve::Role>(trial % 3);
    // Every fourth engine's budget below the batch cap at times: decoders beyond it wait.
    const serve::ServerConfig cfg = random_server(pick, 1, trial % 4 == 0 ? 40 : 400, true);
    prefill_only += cfg.batching == serve::Batching::prefill_first;
    streaming += cfg.stream_interval > 1;
    receiving += cfg.recv_interval > 1;
    std::vector<serve::Request> reqs(pick(1, 120));
    double t = 0;
    for (serve::Request& q : reqs) {
      t += std::uniform_real_distribution<double>(0, 0.004)(rng);
      q.arrival_s = t;
      q.input_tokens = pick(1, cfg.chunked_prefill ? 600 : std::min<std::uint32_t>(600, cfg.max_batch_tokens));
      q.output_tokens = pick(role == serve::Role::decode ? 2 : 1, 40);
      q.cached_tokens = pick(0, 3) == 0 ? pick(0, q.input_tokens - 1) : 0;
      one_token += q.output_tokens == 1;
    }
    const std::uint64_t capacity = pick(300, 12000);
    RecordingModel model;
    serve::Worker<RecordingModel> worker(model, reqs, cfg, capacity, role, reqs.size());
    ReferenceWorker ref(reqs, cfg, capacity, role);
    // A decode worker's arrivals come from transfers: shuffle them a little, as links do.
    std::vector<std::pair<double, std::uint32_t>> arrivals;
    for (std::uint32_t i = 0; i < reqs.size(); ++i)
      arrivals.push_back({reqs[i].arrival_s + (role == serve::Role::decode ? pick(0, 5) * 1e-3 : 0.0), i});
    for (std::size_t i = 1; i < arrivals.size(); ++i) out_of_order += arrivals[i].first < arrivals[i - 1].first;
    std::size_t next = 0;
    while (next < arrivals.size() || worker.next_event_s() < std::numeric_limits<double>::infinity()) {
      REQUIRE(worker.next_event_s() == ref.next_event_s());
      const double now = worker.next_event_s();
      if (next < arrivals.size() && arrivals[next].first <= now) {  // known before the next event: delivered
        worker.arrive(arrivals[next].second, arrivals[next].first);
        ref.arrive(arrivals[next].second, arrivals[next].first);
        ++next;
        continue;
      }
      const serve::StepEvents got = worker.step();
      const ReferenceWorker::Step want = ref.step(RecordingModel::time);
      ++steps;
      CAPTURE(trial);
      CAPTURE(steps);
      REQUIRE(got.iteration == want.iteration);
      REQUIRE(got.start_s == want.start_s);
      REQUIRE(got.end_s == want.end_s);
      REQUIRE(got.output_tokens == want.output_tokens);
      REQUIRE(same_ids(want.admitted, got.admitted));
      REQUIRE(same_ids(want.rejected, got.rejected));
      REQUIRE(same_ids(want.first_tokens, got.first_tokens));
      REQUIRE(same_ids(want.finished, got.finished));
      if (got.iteration) {
        REQUIRE(same_chunks(want.prefill, model.prefill.back()));
        REQUIRE(same_ids(want.decode_kv, model.decode_kv.back()));
        budget_bound += want.decode_kv.size() == cfg.max_batch_tokens;
        padded += !want.decode_kv.empty() && want.decode_kv.back() == 1;  // a real decode's KV is at least 2
        paused += want.decode_kv.empty() && want.held_back > 0;
        waited += want.held_prompts;
      }
    }
    CHECK(worker.stats().kv_used_peak == ref.used_peak());
    CHECK(worker.running() == 0);
  }
  // The workloads reached the cases the arrays must get right.
  CHECK(steps > 20000);
  CHECK(budget_bound > 100);  // more decoders than the budget: only the first ones decode
  CHECK(one_token > 100);     // a prompt whose first token is its last
  CHECK(out_of_order > 100);  // a transfer landing before one queued earlier
  CHECK(prefill_only > 100);  // both batching policies, chunked and whole prompts, with and without a front end
  CHECK(paused > 100);        // prefill-first iterations that held decoders back
  CHECK(padded > 100);        // decode batches run at a captured CUDA-graph size
  CHECK(waited > 100);        // batch waiting held prompt rows back
  CHECK(streaming > 30);      // first tokens streamed with a later token
  CHECK(receiving > 30);      // a busy scheduler receiving every few loops
}

TEST_CASE("a decode stretch run in one step is the iterations stepped one by one, bit for bit") {
  // Two workers on one workload: `one` steps an iteration at a time, `fast` with a horizon
  // (the next outside arrival, or sooner at random). Each of fast's steps must be as many
  // of one's: the same batches, ends and stats, the events on the last of them only.
  std::mt19937_64 rng(20261205);
  auto pick = [&](std::uint32_t lo, std::uint32_t hi) { return std::uniform_int_distribution<std::uint32_t>(lo, hi)(rng); };
  std::uint64_t stretches = 0, stretched_iterations = 0, cut_by_horizon = 0, padded = 0;
  for (int trial = 0; trial < 200; ++trial) {
    const auto role = trial % 4 == 3 ? serve::Role::decode : serve::Role::aggregated;
    const serve::ServerConfig cfg = random_server(pick, 8, 600, false);
    std::vector<serve::Request> reqs(pick(1, 80));
    double t = 0;
    for (serve::Request& q : reqs) {
      t += pick(0, 3) == 0 ? std::uniform_real_distribution<double>(0, 0.05)(rng) : 0.0;  // bursts, as clients start
      q.arrival_s = t;
      q.input_tokens = pick(1, cfg.chunked_prefill ? 500 : std::min<std::uint32_t>(500, cfg.max_batch_tokens));
      q.output_tokens = pick(2, 300);
    }
    const std::uint64_t capacity = pick(600, 20000);
    RecordingModel one_model, fast_model;
    serve::Worker<RecordingModel> one(one_model, reqs, cfg, capacity, role, reqs.size());
    serve::Worker<RecordingModel> fast(fast_model, reqs, cfg, capacity, role, reqs.size());
    std::size_t next = 0;
    while (next < reqs.size() || fast.next_event_s() < std::numeric_limits<double>::infinity()) {
      REQUIRE(fast.next_event_s() == one.next_event_s());
      const double now = fast.next_event_s();
      if (next < reqs.size() && reqs[next].arrival_s <= now) {
        fast.arrive(static_cast<std::uint32_t>(next), reqs[next].arrival_s);
        one.arrive(static_cast<std::uint32_t>(next), reqs[next].arrival_s);
        ++next;
        continue;
      }
      double horizon = next < reqs.size() ? reqs[next].arrival_s : std::numeric_limits<double>::infinity();
      if (pick(0, 4) == 0) horizon = std::min(horizon, now + pick(0, 40) * 1e-3);
      const serve::StepEvents got = fast.step(horizon);
      CAPTURE(trial);
      REQUIRE(got.iterations == got.iteration_ends.size());
      // A stretch holds no event but its last iteration's finishes and streamed first tokens
      // (stream_interval): an admission or a rejection ends it where it happens, so a caller
      // can stop.
      if (got.iterations > 1) REQUIRE((got.admitted.empty() && got.rejected.empty()));
      std::uint32_t tokens = 0;
      for (std::uint32_t i = 0; i < got.iterations; ++i) {
        const serve::StepEvents want = one.step();
        REQUIRE(want.iteration);
        REQUIRE(want.iteration_ends.size() == 1);
        if (i == 0) REQUIRE(want.start_s == got.start_s);
        REQUIRE(want.end_s == got.iteration_ends[i]);
        tokens += want.output_tokens;
        const bool last = i + 1 == got.iterations;
        if (!last) {  // nothing happens inside a stretch but tokens
          REQUIRE(want.first_tokens.empty());
          REQUIRE(want.finished.empty());
        } else {
          REQUIRE(same_ids(std::vector<std::uint32_t>(want.first_tokens.begin(), want.first_tokens.end()), got.first_tokens));
          REQUIRE(same_ids(std::vector<std::uint32_t>(want.finished.begin(), want.finished.end()), got.finished));
        }
        if (i == 0) {  // admissions only as the step begins
          REQUIRE(same_ids(std::vector<std::uint32_t>(want.admitted.begin(), want.admitted.end()), got.admitted));
          REQUIRE(same_ids(std::vector<std::uint32_t>(want.rejected.begin(), want.rejected.end()), got.rejected));
        } else {
          REQUIRE(want.admitted.empty());
          REQUIRE(want.rejected.empty());
        }
      }
      if (!got.iteration) REQUIRE_FALSE(one.step().iteration);
      REQUIRE(tokens == got.output_tokens);
      REQUIRE(got.end_s == fast.clock_s());
      if (got.iterations > 1) {
        ++stretches;
        stretched_iterations += got.iterations;
        cut_by_horizon += got.finished.empty() && fast.clock_s() >= horizon;
        padded += !fast_model.decode_kv.back().empty() && fast_model.decode_kv.back().back() == 1;
      }
    }
    REQUIRE(fast_model.decode_kv == one_model.decode_kv);
    REQUIRE(fast_model.prefill.size() == one_model.prefill.size());
    const serve::WorkerStats& a = fast.stats();
    const serve::WorkerStats& b = one.stats();
    CHECK(a.iterations == b.iterations);
    CHECK(a.busy_s == b.busy_s);  // added in the same order: the same bits
    CHECK(a.output_tokens == b.output_tokens);
    CHECK(a.batch_tokens == b.batch_tokens);
    CHECK(a.kv_used_peak == b.kv_used_peak);
    CHECK(a.kv_reserved_peak == b.kv_reserved_peak);
    CHECK(a.batch_peak == b.batch_peak);
  }
  // The workloads reached long stretches, stretches cut at the horizon, and padded batches.
  CHECK(stretches > 300);
  CHECK(stretched_iterations > 20 * stretches);
  CHECK(cut_by_horizon > 20);
  CHECK(padded > 20);
}

TEST_CASE("an arch model counts the kernels one GPU launches in a prompt iteration: leaves that run, times layers") {
  serve::ArchModel model(Arch{}, timing());
  const std::uint32_t kv[] = {300, 900};
  const ops::PrefillChunk chunk[] = {{0, 512}};
  const double before = model.iteration_s(ops::AttentionBatch{chunk, kv});
  // Llama-3-8B on one GPU: per layer 7 attention leaves (norm, qkv, rope, KV append,
  // prefill, decode, o_proj) and 4 MLP leaves; the embedding, the final norm and the LM
  // head; its all-reduces and all-gather take no time on one GPU and launch nothing.
  CHECK(model.launches() == 32 * (7 + 4) + 3);
  CHECK(model.iteration_s(ops::AttentionBatch{chunk, kv}) == before);  // the probe left the iteration as it was
  static_assert(serve::CountsLaunches<serve::ArchModel<Arch>>);
}

TEST_CASE("a simulated unit with decode stretches is the unit stepped one iteration at a time") {
  // The figures of simulate_aggregated / simulate_disaggregated are stepping's (the test above
  // drives the worker); here the same closed-loop load through the arch model and the plain
  // stepping loop of the reference test gives the same TTFT and TPOT percentiles.
  serve::ArchModel model(Arch{}, timing());
  serve::ServerConfig cfg;
  cfg.max_seqs = 16;
  serve::Load load;
  load.kind = serve::Load::Kind::closed;
  load.clients = 16;
  load.warmup = 0;
  load.measured = 48;
  load.input_tokens = 700;
  load.output_tokens = 150;
  const serve::UnitResult r = serve::simulate_aggregated(model, {cfg, 200000}, load);
  // The same load stepped by hand.
  std::vector<serve::Request> reqs(load.total());
  for (serve::Request& q : reqs) q.input_tokens = load.input_tokens, q.output_tokens = load.output_tokens;
  serve::Worker<decltype(model)> w(model, reqs, cfg, 200000, serve::Role::aggregated, reqs.size());
  std::uint32_t issued = 0;
  for (; issued < load.clients; ++issued) w.arrive(issued, 0.0);
  std::vector<double> first(reqs.size()), arrival(reqs.size(), 0.0), ttft, tpot;
  std::uint64_t iterations = 0;
  std::uint32_t done = 0;
  while (done < reqs.size()) {
    const serve::StepEvents ev = w.step();
    if (!ev.iteration) continue;
    ++iterations;
    for (const std::uint32_t id : ev.first_tokens) first[id] = ev.end_s, ttft.push_back(ev.end_s - arrival[id]);
    for (const std::uint32_t id : ev.finished) {
      ++done;
      tpot.push_back((ev.end_s - first[id]) / (load.output_tokens - 1));
      if (issued < reqs.size()) arrival[issued] = ev.end_s, w.arrive(issued++, ev.end_s);
    }
  }
  CHECK(r.iterations == iterations);
  const serve::Percentiles want_ttft = serve::Percentiles::of(ttft), want_tpot = serve::Percentiles::of(tpot);
  CHECK(r.ttft_s.p50 == want_ttft.p50);
  CHECK(r.ttft_s.mean == want_ttft.mean);
  CHECK(r.tpot_s.p90 == want_tpot.p90);
  CHECK(r.tpot_s.mean == want_tpot.mean);
  CHECK(iterations > 2 * load.output_tokens);  // rounds of decode stretches, run as such
}

TEST_CASE("a small KV cache queues admissions but never overflows, and every request finishes") {
  const Arch arch;
  const auto reqs = poisson_requests(300, 1000);
  serve::ServerConfig cfg;
  cfg.max_batch_tokens = 2048;
  const std::uint64_t cap = 16 * 1024;  // far less than 300 concurrent footprints
  const auto r = serve::simulate(arch, timing(), reqs, cfg, cap);
  std::uint64_t in = 0, out = 0;
  for (const auto& q : reqs) {
    in += q.input_tokens;
    out += q.output_tokens;
  }
  CHECK(r.completed + r.rejected == reqs.size());
  CHECK(r.kv_reserved_peak <= 1.0);
  CHECK(r.kv_reserved_peak > 0.8);  // the cache, not max_seqs, was the limit
  CHECK(r.kv_used_peak <= r.kv_reserved_peak);
  CHECK(r.ttft_le_e2e);
  CHECK(r.queue_s.p99 > 0);
  CHECK(r.busy_s <= r.sim_time_s);
  if (r.rejected == 0) {
    CHECK(r.prefill_tokens == in);
    CHECK(r.output_tokens == out);
  }
}

TEST_CASE("a request larger than the whole cache is rejected, the rest still run") {
  const Arch arch;
  const std::vector<serve::Request> reqs{{0.0, 100, 10}, {0.0, 5000, 10}, {0.1, 100, 10}};
  const auto r = serve::simulate(arch, timing(), reqs, {}, 1024);
  CHECK(r.rejected == 1);
  CHECK(r.completed == 2);
}

TEST_CASE("KV capacity: HBM less weights less the reserve, over KV bytes per token, whole blocks") {
  const Arch arch;
  serve::ServerConfig cfg;
  const auto kv = serve::kv_budget(arch, timing().gpu(), cfg);
  const double free = timing().gpu().hbm_capacity * (1 - cfg.reserve_fraction) - arch.weight_bytes_per_gpu();
  CHECK(kv.tokens % cfg.kv_block == 0);
  CHECK(static_cast<double>(kv.tokens) <= free / arch.kv_bytes_per_token_per_gpu());
  CHECK(static_cast<double>(kv.tokens + cfg.kv_block) > free / arch.kv_bytes_per_token_per_gpu());
  cfg.reserve_fraction = 0.95;  // 8B weights do not fit in 5% of an H200
  CHECK_THROWS_AS(serve::kv_budget(arch, timing().gpu(), cfg), InputError);
}

TEST_CASE("a workload no request of which fits the cache is an error that says why, not NaN rates") {
  const Arch arch;
  const std::vector<serve::Request> reqs{{0.0, 5000, 10}, {0.0, 6000, 10}};
  CHECK_THROWS_WITH_AS(serve::simulate(arch, timing(), reqs, {}, 1024),
                       "no request can run: all 2 need more KV than the cache holds (the smallest needs 5024 tokens, "
                       "the cache holds 1024)",
                       InputError);
}

TEST_CASE("a worker allocates nothing per iteration once its buffers have grown") {
  serve::ArchModel<Arch> model(Arch{}, timing());
  const auto reqs = poisson_requests(400, 400);
  serve::ServerConfig cfg;
  cfg.max_seqs = 64;
  cfg.max_batch_tokens = 2048;
  serve::Worker<serve::ArchModel<Arch>> worker(model, reqs, cfg, 1 << 20, serve::Role::aggregated, reqs.size());
  for (std::uint32_t i = 0; i < reqs.size(); ++i) worker.arrive(i, reqs[i].arrival_s);
  for (int i = 0; i < 200; ++i) worker.step();  // warm: the batch reached the cap, the feed its size
  REQUIRE(worker.stats().batch_peak == 64);
  const long before = costdsl::testing::allocation_count();
  std::uint64_t steps = 0;
  while (worker.next_event_s() < std::numeric_limits<double>::infinity()) {
    worker.step();
    ++steps;
  }
  CHECK(costdsl::testing::allocation_count() == before);
  CHECK(steps > 1000);
  CHECK(worker.running() == 0);
  CHECK(worker.queued() == 0);
}

TEST_CASE("roles: a prefill worker hands a request on at its first token; a decode worker streams it and the rest") {
  serve::ArchModel<Arch> model(Arch{}, timing());
  const auto t = iteration_of(model);
  const serve::Load load = one_request(3000, 4);
  const serve::WorkerSetup prefill{{2048, 8, 16, 0.1}, 1 << 20}, decode{{8, 8, 16, 0.1}, 1 << 20};
  const double transfer = 0.004;
  const serve::UnitResult r =
      serve::simulate_disaggregated(model, 1, prefill, model, 1, decode, transfer, load, serve::Sla{});
  // Prefill: two chunks under the 2048 budget. The first token reaches the client when the
  // decode worker takes the request, its KV handed over; three more tokens at KV 3001..3003.
  const double ttft = t({{0, 2048}}, {}) + t({{2048, 952}}, {}) + transfer;
  const double e2e = ttft + t({}, {3001}) + t({}, {3002}) + t({}, {3003});
  CHECK(r.finished == 1);
  CHECK_FALSE(r.stopped_early);
  CHECK(r.ttft_s.p50 == doctest::Approx(ttft).epsilon(1e-12));
  CHECK(r.e2e_s.p50 == doctest::Approx(e2e).epsilon(1e-12));
  CHECK(r.tpot_s.p50 == doctest::Approx((e2e - ttft) / 3).epsilon(1e-12));
  CHECK(r.tokens_per_s_user == doctest::Approx(3 / (e2e - ttft)).epsilon(1e-9));
  CHECK(r.iterations == 5);
  // A decode server streaming every 3 tokens (SGLang's --stream-interval) sends the first
  // token with the third, two decodes later; the last token is where it was.
  serve::WorkerSetup chunked = decode;
  chunked.server.stream_interval = 3;
  const serve::UnitResult s =
      serve::simulate_disaggregated(model, 1, prefill, model, 1, chunked, transfer, load, serve::Sla{});
  CHECK(s.ttft_s.p50 == doctest::Approx(ttft + t({}, {3001}) + t({}, {3002})).epsilon(1e-12));
  CHECK(s.e2e_s.p50 == doctest::Approx(e2e).epsilon(1e-12));
}

TEST_CASE("speculative decoding: a step verifies 1 + k rows a decode, adds k draft layers, and advances by the accepted") {
  serve::ArchModel<Arch> model(Arch{}, timing());
  REQUIRE(model.layers() == 32);
  const auto t = iteration_of(model);
  serve::Load load = one_request(3000, 9);
  const serve::WorkerSetup prefill{{4096, 8, 16, 0.1}, 1 << 20};
  serve::WorkerSetup decode{{64, 8, 16, 0.1}, 1 << 20};
  // Three drafts, every one accepted: 4 tokens a step, so the 8 after the first in 2 steps,
  // each the iteration of the decode's row 4 times over, times (32 + 3) / 32.
  decode.server.draft_tokens = 3;
  decode.server.draft_acceptance = {1, 1, 1};
  const serve::UnitResult r = serve::simulate_disaggregated(model, 1, prefill, model, 1, decode, 0, load, serve::Sla{});
  const double ttft = t({{0, 3000}}, {});
  const double steps = (t({}, {3001, 3001, 3001, 3001}) + t({}, {3005, 3005, 3005, 3005})) * 35 / 32;
  CHECK(r.finished == 1);
  CHECK(r.ttft_s.p50 == doctest::Approx(ttft).epsilon(1e-12));
  CHECK(r.e2e_s.p50 == doctest::Approx(ttft + steps).epsilon(1e-12));
  CHECK(r.iterations == 3);
  // One draft accepted half the time: 1 + 0.5 tokens a step, as whole tokens 1, 2, 1, 2 …:
  // the last 3 of a 4-token request in 2 steps.
  decode.server.draft_tokens = 1;
  decode.server.draft_acceptance = {0.5};
  load.output_tokens = 4;
  const serve::UnitResult h = serve::simulate_disaggregated(model, 1, prefill, model, 1, decode, 0, load, serve::Sla{});
  CHECK(h.e2e_s.p50 == doctest::Approx(ttft + (t({}, {3001, 3001}) + t({}, {3002, 3002})) * 33 / 32).epsilon(1e-12));
  CHECK(h.iterations == 3);
  // Drafts past the rates given are rejected; aiconfigurator's default rates 0.85, 0.3.
  CHECK(serve::ServerConfig::expected_accepted(3, std::vector<double>{0.85, 0.3}) == doctest::Approx(0.85 + 0.85 * 0.3));
  CHECK(serve::ServerConfig{}.accepted_drafts() == 0);
  serve::ServerConfig deep;
  deep.draft_tokens = 2;
  CHECK(deep.accepted_drafts() == doctest::Approx(1.105));
  // Without drafts the step is the plain decode's: the same run as a worker that never heard of them.
  decode.server.draft_tokens = 0;
  const serve::UnitResult plain = serve::simulate_disaggregated(model, 1, prefill, model, 1, decode, 0, load, serve::Sla{});
  CHECK(plain.e2e_s.p50 == doctest::Approx(ttft + t({}, {3001}) + t({}, {3002}) + t({}, {3003})).epsilon(1e-12));
}

TEST_CASE("speculative decoding needs a model that counts its layers, and acceptance rates that are chances") {
  struct NoLayers {
    double iteration_s(const ops::AttentionBatch&) { return 1e-3; }
    double kv_bytes_per_token_per_gpu() const { return 1; }
    double weight_bytes_per_gpu() const { return 0; }
  } flat;
  std::vector<serve::Request> reqs(1);
  reqs[0].input_tokens = 100;
  reqs[0].output_tokens = 10;
  serve::ServerConfig cfg;
  cfg.draft_tokens = 2;
  CHECK_THROWS_WITH_AS(serve::Worker<NoLayers>(flat, reqs, cfg, 1 << 20), doctest::Contains("counts its decoder layers"),
                       InputError);
  RecordingModel counted;
  cfg.draft_acceptance = {0.9, 1.5};
  CHECK_THROWS_WITH_AS(serve::Worker<RecordingModel>(counted, reqs, cfg, 1 << 20),
                       doctest::Contains("draft_acceptance 1.5"), InputError);
  cfg.draft_acceptance = {0.9};
  cfg.draft_tokens = serve::max_draft_tokens + 1;
  CHECK_THROWS_WITH_AS(serve::Worker<RecordingModel>(counted, reqs, cfg, 1 << 20), doctest::Contains("draft_tokens 17"),
                       InputError);
}

TEST_CASE("disaggregated TTFT: a request whose KV landed waits for room on the decode worker before its first token") {
  serve::ArchModel<Arch> model(Arch{}, timing());
  const auto t = [&](std::vector<ops::PrefillChunk> p, std::vector<std::uint32_t> d) {
    return model.iteration_s({p, d});
  };
  serve::Load load;
  load.kind = serve::Load::Kind::closed;
  load.clients = 2;
  load.measured = 2;
  load.input_tokens = 1000;
  load.output_tokens = 40;  // the first request decodes longer than the second one's prefill
  const serve::WorkerSetup prefill{{1000, 1, 16, 0.1}, 1 << 20};
  const double transfer = 0.002;
  // One decode slot: the second request's KV lands while the first decodes; its first token
  // comes out when the first request leaves.
  const serve::UnitResult one = serve::simulate_disaggregated(model, 1, prefill, model, 1,
                                                              serve::WorkerSetup{{8, 1, 16, 0.1}, 1 << 20}, transfer,
                                                              load, serve::Sla{});
  const serve::UnitResult eight = serve::simulate_disaggregated(model, 1, prefill, model, 1,
                                                                serve::WorkerSetup{{8, 8, 16, 0.1}, 1 << 20}, transfer,
                                                                load, serve::Sla{});
  const double p = t({{0, 1000}}, {});
  double first_done = p + transfer;
  for (std::uint32_t kv = 1001; kv < 1040; ++kv) first_done += t({}, {kv});
  REQUIRE(first_done > 2 * p + transfer);
  CHECK(one.ttft_s.p50 == doctest::Approx(p + transfer).epsilon(1e-12));  // the first request
  CHECK(one.ttft_s.p99 == doctest::Approx(first_done).epsilon(1e-12));     // the second waited for it
  // Eight slots: its KV lands mid-iteration; it joins the batch at the next iteration boundary.
  double boundary = p + transfer;
  for (std::uint32_t kv = 1001; boundary < 2 * p + transfer; ++kv) boundary += t({}, {kv});
  CHECK(eight.ttft_s.p99 == doctest::Approx(boundary).epsilon(1e-12));
  CHECK(eight.ttft_s.p99 < one.ttft_s.p99);
}

TEST_CASE("a closed loop keeps its clients' requests in flight, out of phase, and every measured one finishes") {
  serve::ArchModel<Arch> model(Arch{}, timing());
  serve::Load load;
  load.clients = 8;
  load.warmup = 8;
  load.measured = 24;
  load.stagger_s = 0.05;
  load.input_tokens = 1000;
  load.output_tokens = 50;
  const auto reqs = load.requests();
  for (std::uint32_t k = 0; k < 8; ++k) CHECK(reqs[k].arrival_s == doctest::Approx(0.05 * k));
  const serve::WorkerSetup s{{4096, 8, 16, 0.1}, 1 << 20};
  const serve::UnitResult r = serve::simulate_aggregated(model, s, load);
  CHECK(r.finished == 24);
  CHECK_FALSE(r.stopped_early);
  CHECK(r.in_flight == 8);
  CHECK(r.output_tokens_per_s > 0);
  // 8 requests in flight, each producing a token per iteration at most: the unit cannot
  // beat 8 tokens per decode iteration (decodes only take longer with prefill chunks in).
  CHECK(r.output_tokens_per_s <= 8 / model.iteration_s({{}, std::vector<std::uint32_t>(8, 1000)}) * 1.0001);
  CHECK(r.ttft_s.p50 <= r.e2e_s.p50);
  CHECK(r.tpot_s.p99 >= r.tpot_s.p50);
}

TEST_CASE("requests of drawn lengths: each in ratio × L .. L, seeded, the arrivals undisturbed, never replayed") {
  serve::Load load;
  load.clients = 4;
  load.measured = 400;
  load.input_tokens = 1000;
  load.output_tokens = 100;
  load.cached_tokens = 900;
  load.min_length_ratio = 0.8;
  load.seed = 7;
  CHECK_FALSE(load.fixed_lengths());
  const auto reqs = load.requests();
  std::set<std::uint32_t> inputs, outputs;
  for (const serve::Request& r : reqs) {
    CHECK(r.input_tokens >= 901);  // above the cached prefix, whatever the ratio allows
    CHECK(r.input_tokens <= 1000);
    CHECK(r.output_tokens >= 80);
    CHECK(r.output_tokens <= 100);
    inputs.insert(r.input_tokens);
    outputs.insert(r.output_tokens);
  }
  CHECK(inputs.size() > 50);
  CHECK(outputs.size() == 21);  // 400 draws cover 80..100
  CHECK(load.requests() == reqs);
  serve::Load other = load;
  other.seed = 8;
  CHECK(other.requests() != reqs);
  // An open loop's arrival times are the fixed-length load's: lengths come from a stream of their own.
  other.kind = serve::Load::Kind::open;
  other.rate = 5;
  serve::Load fixed = other;
  fixed.min_length_ratio = 1;
  const auto a = other.requests(), b = fixed.requests();
  for (std::size_t i = 0; i < a.size(); ++i) CHECK(a[i].arrival_s == b[i].arrival_s);

  // A closed loop of drawn lengths never repeats a round: nothing replayed, stepping's figures exactly.
  serve::ArchModel<Arch> model(Arch{}, timing());
  serve::Load loop;
  loop.clients = 4;
  loop.measured = 64;
  loop.input_tokens = 600;
  loop.output_tokens = 40;
  loop.min_length_ratio = 0.8;
  const serve::WorkerSetup s{{4096, 8, 16, 0.1}, 1 << 20};
  const serve::UnitResult skip = serve::simulate_aggregated(model, s, loop, {}, serve::Cycles::skip);
  const serve::UnitResult step = serve::simulate_aggregated(model, s, loop, {}, serve::Cycles::step);
  CHECK(skip.replayed == 0);
  CHECK(skip.finished == 64);
  CHECK(skip.ttft_s.mean == step.ttft_s.mean);
  CHECK(skip.tpot_s.mean == step.tpot_s.mean);
  CHECK(skip.sim_time_s == step.sim_time_s);
  // Fixed lengths at the same mean settle into a replayed cycle.
  loop.min_length_ratio = 1;
  CHECK(serve::simulate_aggregated(model, s, loop, {}, serve::Cycles::skip).replayed > 0);
}

TEST_CASE("with an SLA it cannot meet, a unit stops once the miss is certain, with the figures so far") {
  serve::ArchModel<Arch> model(Arch{}, timing());
  serve::Load load;
  load.clients = 4;
  load.warmup = 4;
  load.measured = 40;
  load.stagger_s = 0.01;
  load.input_tokens = 1000;
  load.output_tokens = 20;
  const serve::WorkerSetup s{{4096, 4, 16, 0.1}, 1 << 20};
  serve::Sla sla;
  sla.ttft_s = 1e-6;  // no prefill of 1000 tokens takes a microsecond
  const serve::UnitResult stopped = serve::simulate_aggregated(model, s, load, sla);
  CHECK(stopped.stopped_early);
  // p90 of 40: once 40 - 36 + 1 = 5 measured requests miss, the percentile must miss.
  CHECK(sla.certain_miss_count(40) == 5);
  CHECK(stopped.finished < 40);
  const serve::UnitResult full = serve::simulate_aggregated(model, s, load);
  CHECK_FALSE(full.stopped_early);
  CHECK(full.finished == 40);
  CHECK(full.iterations > stopped.iterations);
}

TEST_CASE("a trace load: its arrivals and lengths as recorded, the first tenth as warm-up") {
  serve::ArchModel<Arch> model(Arch{}, timing());
  std::vector<serve::Request> trace;
  for (std::uint32_t i = 0; i < 20; ++i) trace.push_back({0.02 * i, 500 + 100 * (i % 3), 10 + i % 4});
  serve::Load load;
  load.kind = serve::Load::Kind::trace;
  load.trace = trace;
  load.warmup = 2;
  load.measured = 18;
  load.rate = 50;
  const auto reqs = load.requests();
  REQUIRE(reqs.size() == 20);
  CHECK(reqs[7].arrival_s == trace[7].arrival_s);
  CHECK(reqs[7].input_tokens == 600);
  CHECK(reqs[7].output_tokens == 13);
  const serve::WorkerSetup s{{4096, 8, 16, 0.1}, 1 << 20};
  const serve::UnitResult r = serve::simulate_aggregated(model, s, load);
  CHECK(r.finished == 18);
  CHECK(r.warmup == 2);
  // The requests' own lengths ran: a 700-token prompt (every third) takes at least its
  // iteration alone to its first token, and the trace's outputs at most 13 steps each.
  CHECK(r.ttft_s.p99 >= model.iteration_s({std::vector<ops::PrefillChunk>{{0, 700}}, {}}));
  CHECK(r.e2e_s.p99 > r.ttft_s.p99);
  load.trace = std::span<const serve::Request>(trace).first(19);
  CHECK_THROWS_WITH_AS(load.check(), "load: a trace of 19 requests must be warmup 2 + measured 18", InputError);
  trace[3].output_tokens = 1;
  load.trace = trace;
  CHECK_THROWS_WITH_AS(load.check(), "load: trace request 3: output_tokens must be at least 2 (a TPOT needs a second token)",
                       InputError);
}

TEST_CASE("load and SLA inputs: each rule named") {
  serve::Load load;
  load.output_tokens = 1;
  CHECK_THROWS_WITH_AS(load.check(), "load: output_tokens must be at least 2 (a TPOT needs a second token)", InputError);
  load.output_tokens = 2;
  load.cached_tokens = 1;
  CHECK_THROWS_WITH_AS(load.check(), "load: cached_tokens 1 must be below input_tokens 1", InputError);
  load.cached_tokens = 0;
  load.kind = serve::Load::Kind::open;
  load.rate = std::numeric_limits<double>::quiet_NaN();
  CHECK_THROWS_WITH_AS(load.check(), "load: rate nan must be a positive finite number", InputError);
  load.kind = serve::Load::Kind::closed;
  load.output_tokens = 3;
  load.min_length_ratio = 0;
  CHECK_THROWS_WITH_AS(load.check(), "load: min_length_ratio 0 must be in (0, 1]", InputError);
  load.min_length_ratio = 0.5;
  CHECK_THROWS_WITH_AS(load.check(),
                       "load: min_length_ratio 0.5 of output_tokens 3 leaves 1 tokens; a TPOT needs a second token",
                       InputError);
  load.output_tokens = 4;
  CHECK_NOTHROW(load.check());
  serve::Sla sla;
  CHECK_FALSE(sla.any());
  sla.quantile = serve::Quantile::p99;
  CHECK(sla.certain_miss_count(100) == 2);
  CHECK(sla.certain_miss_count(1) == 1);
}

TEST_CASE("percentiles: nearest rank by selection equals nearest rank on the sorted sample") {
  std::mt19937 gen(7);
  for (std::size_t n : {1u, 2u, 3u, 9u, 10u, 11u, 99u, 100u, 101u, 1000u, 4097u}) {
    for (int dup = 0; dup < 2; ++dup) {
      std::vector<double> v(n);
      std::uniform_int_distribution<int> few(0, 5);
      std::uniform_real_distribution<double> any(0.0, 1.0);
      for (double& x : v) x = dup ? few(gen) * 0.25 : any(gen);
      std::vector<double> sorted = v;
      std::sort(sorted.begin(), sorted.end());
      auto nearest = [&](double q) {
        const auto k = static_cast<std::size_t>(std::ceil(q * static_cast<double>(n)));
        return sorted[std::max<std::size_t>(k, 1) - 1];
      };
      const double mean = std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(n);
      const serve::Percentiles p = serve::Percentiles::of(v);
      CAPTURE(n);
      CAPTURE(dup);
      CHECK(p.p50 == nearest(0.50));
      CHECK(p.p90 == nearest(0.90));
      CHECK(p.p99 == nearest(0.99));
      CHECK(p.mean == doctest::Approx(mean).epsilon(1e-12));
    }
  }
  std::vector<double> empty;
  CHECK(serve::Percentiles::of(empty).p99 == 0);
}

TEST_CASE("a closed loop's settled cycle replayed gives the figures of stepping every round, on random engines") {
  // Cycles::skip moves the worker on by whole periods once two round starts match; every
  // figure must be Cycles::step's within rounding, and most workloads must settle.
  std::mt19937_64 rng(20261205);
  auto pick = [&](std::uint32_t lo, std::uint32_t hi) { return std::uniform_int_distribution<std::uint32_t>(lo, hi)(rng); };
  RecordingModel model;
  int replayed = 0, replayed_disagg = 0;
  const auto close = [](double a, double b) { return std::abs(a - b) <= 1e-9 * std::max(1.0, std::abs(b)); };
  const auto same = [&](const serve::Percentiles& a, const serve::Percentiles& b) {
    return close(a.mean, b.mean) && close(a.p50, b.p50) && close(a.p90, b.p90) && close(a.p99, b.p99);
  };
  for (int trial = 0; trial < 150; ++trial) {
    serve::ServerConfig cfg = random_server(pick, 64, 4096, true);
    if (pick(0, 4) == 0) {  // speculative decoding: the carried fraction of a token is state too
      cfg.draft_tokens = pick(1, 3);
      cfg.draft_acceptance = {pick(0, 10) / 10.0, pick(0, 10) / 10.0};
    }
    serve::Load load;
    load.kind = serve::Load::Kind::closed;
    load.clients = pick(1, 12);
    load.warmup = pick(0, 1) == 0 ? 0 : load.clients;
    load.measured = load.clients * pick(4, 30);
    load.input_tokens = pick(1, cfg.chunked_prefill ? 900 : std::min(900u, cfg.max_batch_tokens));
    load.output_tokens = pick(2, 120);
    load.cached_tokens = pick(0, 3) == 0 ? pick(0, load.input_tokens - 1) : 0;
    // A cache of a few requests at times: admissions wait for room.
    const serve::WorkerSetup setup{cfg, pick(0, 3) == 0 ? pick(1, 4) * 1024u : 1u << 20};
    // Every third trial a disaggregated unit: 1-2 prefill and 1-3 decode workers, a hand-off time.
    const bool disagg = trial % 3 == 2;
    const std::uint32_t pw = pick(1, 2), dw = pick(1, 3);
    const double transfer = pick(0, 3) * 1e-3;
    serve::WorkerSetup dsetup = setup;
    dsetup.server.frontend_s = 0;
    const auto run = [&](serve::Cycles c) {
      return disagg ? serve::simulate_disaggregated(model, pw, setup, model, dw, dsetup, transfer, load, {}, c)
                    : serve::simulate_aggregated(model, setup, load, {}, c);
    };
    const serve::UnitResult skip = run(serve::Cycles::skip);
    const serve::UnitResult step = run(serve::Cycles::step);
    model.prefill.clear();
    model.decode_kv.clear();
    CAPTURE(trial);
    CHECK(step.replayed == 0);
    CHECK(skip.iterations == step.iterations);
    CHECK(skip.finished == step.finished);
    CHECK(same(skip.ttft_s, step.ttft_s));
    CHECK(same(skip.tpot_s, step.tpot_s));
    CHECK(same(skip.e2e_s, step.e2e_s));
    CHECK(close(skip.output_tokens_per_s, step.output_tokens_per_s));
    CHECK(close(skip.tokens_per_s_user, step.tokens_per_s_user));
    CHECK(close(skip.sim_time_s, step.sim_time_s));
    replayed += skip.replayed > 0 ? 1 : 0;
    replayed_disagg += disagg && skip.replayed > 0 ? 1 : 0;
  }
  MESSAGE("replayed: ", replayed, " of 150 trials, ", replayed_disagg, " of 50 disaggregated");
  CHECK(replayed > 50);
  CHECK(replayed_disagg > 10);
}
