// serve_sim's core (examples/serve_sim/sim.hpp): trace parsing, KV admission, and
// that the clock is exactly the sum of costdsl's iteration times.
#include <doctest/doctest.h>

#include <numeric>
#include <sstream>
#include <vector>

#include "sim.hpp"

using namespace costdsl;
using namespace costdsl::archs;

namespace {
using Arch = Llama3<Fixed<llama3_8b>>;
const Timing& timing() {
  static const Timing t = load_timing("h200", TimingMode::roofline);
  return t;
}
std::vector<serve_sim::Request> parse(const std::string& text) {
  std::istringstream in(text);
  return serve_sim::parse_trace(in, "t.csv");
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
  serve_sim::ServerConfig cfg;
  cfg.max_batch_tokens = 8192;
  const std::vector<serve_sim::Request> reqs{{0.0, 10000, 3}};
  const auto r = serve_sim::simulate(arch, timing(), reqs, cfg, 1'000'000);
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

TEST_CASE("a small KV cache queues admissions but never overflows, and every request finishes") {
  const Arch arch;
  serve_sim::SyntheticWorkload w;
  w.requests = 300;
  w.rate = 1000;
  const auto reqs = serve_sim::generate(w);
  serve_sim::ServerConfig cfg;
  cfg.max_batch_tokens = 2048;
  const std::uint64_t cap = 16 * 1024;  // far less than 300 concurrent footprints
  const auto r = serve_sim::simulate(arch, timing(), reqs, cfg, cap);
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
  const std::vector<serve_sim::Request> reqs{{0.0, 100, 10}, {0.0, 5000, 10}, {0.1, 100, 10}};
  const auto r = serve_sim::simulate(arch, timing(), reqs, {}, 1024);
  CHECK(r.rejected == 1);
  CHECK(r.completed == 2);
}

TEST_CASE("KV capacity: HBM less weights less the reserve, over KV bytes per token, whole blocks") {
  const Arch arch;
  serve_sim::ServerConfig cfg;
  const auto kv = serve_sim::kv_budget(arch, timing().gpu(), cfg);
  const double free = timing().gpu().hbm_capacity * (1 - cfg.reserve_fraction) - arch.weight_bytes_per_gpu();
  CHECK(kv.tokens % cfg.kv_block == 0);
  CHECK(static_cast<double>(kv.tokens) <= free / arch.kv_bytes_per_token_per_gpu());
  CHECK(static_cast<double>(kv.tokens + cfg.kv_block) > free / arch.kv_bytes_per_token_per_gpu());
  cfg.reserve_fraction = 0.95;  // 8B weights do not fit in 5% of an H200
  CHECK_THROWS_AS(serve_sim::kv_budget(arch, timing().gpu(), cfg), InputError);
}
