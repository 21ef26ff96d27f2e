// A serving framework's scheduling (serve/framework.hpp, ServerConfig's policies): each
// policy's effect stated as an exact law on a model whose iteration time is a line in
// its prompt rows and decodes, so every expected time is arithmetic.
#include <doctest/doctest.h>

#include <algorithm>
#include <set>
#include <limits>
#include <tuple>
#include <vector>

#include "costdsl/gpu_catalog.hpp"
#include "costdsl/serve/framework.hpp"
#include "costdsl/serve/load.hpp"
#include "costdsl/serve/simulate_unit.hpp"
#include "costdsl/serve/worker.hpp"

using namespace costdsl;

namespace {

// 1 ms per iteration, 20 µs per prompt row, 100 µs per decode.
struct LineModel {
  static constexpr double base = 1e-3, per_row = 20e-6, per_decode = 100e-6;
  double iteration_s(const ops::AttentionBatch& b) const {
    double rows = 0;
    for (const ops::PrefillChunk& c : b.prefill) rows += c.append_len;
    return base + per_row * rows + per_decode * static_cast<double>(b.decode_kv.size());
  }
  double kv_bytes_per_token_per_gpu() const { return 1; }
  double weight_bytes_per_gpu() const { return 0; }
};

serve::Load closed_loop(std::uint32_t clients, std::uint32_t isl, std::uint32_t osl, std::uint32_t rounds) {
  serve::Load load;
  load.clients = clients;
  load.warmup = clients;
  load.measured = rounds * clients;
  load.input_tokens = isl;
  load.output_tokens = osl;
  return load;
}

}  // namespace

TEST_CASE("prefill-first batching keeps a closed loop in lockstep: every round's TTFTs are its prefill batches") {
  // 8 clients of 1000-token prompts under a 2000-token budget: each round is 4 prefill-only
  // iterations of two prompts (1 + 40 ms each) while the decoders wait; the k-th pair's
  // first token comes at 41 k ms. All start decoding together, so they finish together
  // and the next round arrives at once: the same four TTFTs, round after round.
  LineModel model;
  serve::WorkerSetup s{{2000, 8, 1, 0.1}, 1 << 20};
  s.server.batching = serve::Batching::prefill_first;
  const serve::UnitResult pf = serve::simulate_aggregated(model, s, closed_loop(8, 1000, 20, 4));
  REQUIRE(pf.finished == 32);
  const double pair = LineModel::base + 2000 * LineModel::per_row;
  CHECK(pf.ttft_s.mean == doctest::Approx(2.5 * pair).epsilon(1e-12));  // 1, 2, 3 and 4 pairs, equally often
  CHECK(pf.ttft_s.p50 == doctest::Approx(2 * pair).epsilon(1e-12));     // nearest rank: the 16th of 32
  CHECK(pf.ttft_s.p99 == doctest::Approx(4 * pair).epsilon(1e-12));
  // The decodes are 8-wide after each round's prefills; the first pair also waits out the
  // other three pairs' prefills, spread over its 19 later tokens.
  const double decode8 = LineModel::base + 8 * LineModel::per_decode;
  CHECK(pf.tpot_s.p99 == doctest::Approx((3 * pair + 19 * decode8) / 19).epsilon(1e-12));

  // Mixed batching with a front end (1 ms apart): the prompts share iterations with the
  // decodes, so the clients drift apart and a request waits less for its first token.
  s.server.batching = serve::Batching::mixed;
  s.server.frontend_s = 1e-3;
  const serve::UnitResult mixed = serve::simulate_aggregated(model, s, closed_loop(8, 1000, 20, 4));
  REQUIRE(mixed.finished == 32);
  CHECK(mixed.ttft_s.p50 < pf.ttft_s.p50);
}

TEST_CASE("the front end passes simultaneous requests on one at a time, and an idle engine does not wait") {
  LineModel model;
  const std::vector<serve::Request> reqs(3, serve::Request{0.0, 250, 4});
  serve::ServerConfig cfg;
  cfg.frontend_s = 2e-3;
  serve::Worker<LineModel> w(model, reqs, cfg, 1 << 20);
  for (std::uint32_t i = 0; i < 3; ++i) w.arrive(i, 0.0);
  CHECK(w.next_event_s() == doctest::Approx(2e-3));  // the first one reaches the engine after its front-end time
  serve::StepEvents ev = w.step();
  CHECK_FALSE(ev.iteration);  // idle until then: the clock moves to it
  ev = w.step();
  CHECK(ev.admitted.size() == 1);  // alone: the others are still in the front end
  CHECK(ev.start_s == doctest::Approx(2e-3));
  ev = w.step();  // by now (2 ms + 6 ms) the second (at 4 ms) and the third (6 ms) have arrived
  CHECK(ev.admitted.size() == 2);
}

TEST_CASE("scheduling ahead: a request reaching a busy engine runs from the iteration after the next") {
  // One decoder keeps the engine busy: its one-row prefill (0 to 1.02 ms), then 1.1 ms
  // decodes (to 2.12, 3.22, 4.32 ms). A second request arrives at 3 ms, while the decode
  // launched at 2.12 ms runs. An engine that forms each batch as it starts takes it at 3.22
  // ms; one scheduling ahead fixed the 3.22 ms batch at 2.12 ms and takes it at 4.32 ms.
  LineModel model;
  const std::vector<serve::Request> reqs{{0.0, 1, 50}, {3e-3, 1, 2}};
  for (const bool ahead : {false, true}) {
    serve::ServerConfig cfg;
    cfg.overlap_scheduling = ahead;
    serve::Worker<LineModel> w(model, reqs, cfg, 1 << 20);
    w.arrive(0, 0.0);
    w.arrive(1, 3e-3);
    serve::StepEvents ev = w.step();
    CHECK(ev.admitted.size() == 1);  // the idle engine takes the first at once
    CHECK(ev.start_s == 0.0);
    double admitted_at = -1;
    for (int i = 0; i < 6 && admitted_at < 0; ++i) {
      ev = w.step();
      if (!ev.admitted.empty()) admitted_at = ev.start_s;
    }
    const double decode = LineModel::base + LineModel::per_decode;  // the decoder's iterations
    const double first = LineModel::base + LineModel::per_row;      // its one-token prefill
    CHECK(admitted_at == doctest::Approx(first + (ahead ? 3 : 2) * decode).epsilon(1e-12));
  }
}

TEST_CASE("a lagged first token comes out one iteration after its prefill, and TPOT counts from there") {
  LineModel model;
  serve::WorkerSetup s{{4096, 4, 1, 0.1}, 1 << 20};
  const serve::UnitResult now = serve::simulate_aggregated(model, s, closed_loop(1, 500, 10, 3));
  s.server.lagged_first_token = true;
  const serve::UnitResult lagged = serve::simulate_aggregated(model, s, closed_loop(1, 500, 10, 3));
  const double prefill = LineModel::base + 500 * LineModel::per_row, decode = LineModel::base + LineModel::per_decode;
  CHECK(now.ttft_s.p50 == doctest::Approx(prefill).epsilon(1e-12));
  CHECK(lagged.ttft_s.p50 == doctest::Approx(prefill + decode).epsilon(1e-12));
  CHECK(lagged.e2e_s.p50 == doctest::Approx(now.e2e_s.p50).epsilon(1e-12));  // the last token is not late
  CHECK(lagged.tpot_s.p50 == doctest::Approx(8 * decode / 9).epsilon(1e-12));
}

TEST_CASE("batch waiting holds prompts beside decodes for its iterations, or until the batch is full enough") {
  // One decoder (a 1-row prompt, then 1.1 ms decodes) and a 100-row prompt arriving at
  // 2 ms. Without waiting the prompt runs in the first iteration formed after it arrives;
  // waiting 3 iterations holds it through three decode-only iterations first; a ratio the
  // prompt and the decode already reach (101 of 200 rows >= 0.5) does not hold it.
  LineModel model;
  const std::vector<serve::Request> reqs{{0.0, 1, 50}, {2e-3, 100, 2}};
  const auto first_token_s = [&](std::uint32_t iters, double ratio, std::uint32_t& held) {
    serve::ServerConfig cfg;
    cfg.max_batch_tokens = 200;
    cfg.batch_wait_iters = iters;
    cfg.batch_wait_tokens_ratio = ratio;
    serve::Worker<LineModel> w(model, reqs, cfg, 1 << 20);
    w.arrive(0, 0.0);
    w.arrive(1, 2e-3);
    held = 0;
    for (int i = 0; i < 20; ++i) {
      const serve::StepEvents ev = w.step();
      for (const std::uint32_t id : ev.first_tokens)
        if (id == 1) return ev.end_s;
      held += ev.iteration && w.running() == 2;  // both running, the prompt not yet through
    }
    return -1.0;
  };
  const double prefill1 = LineModel::base + LineModel::per_row, decode = LineModel::base + LineModel::per_decode;
  const double mixed = LineModel::base + 100 * LineModel::per_row + LineModel::per_decode;
  std::uint32_t held = 0;
  // Admitted by the iteration that starts at 1.02 + 1.1 = 2.12 ms (the first formed after 2 ms).
  const double start = prefill1 + decode;
  CHECK(first_token_s(0, 0.9, held) == doctest::Approx(start + mixed).epsilon(1e-12));
  CHECK(first_token_s(3, 0.9, held) == doctest::Approx(start + 3 * decode + mixed).epsilon(1e-12));
  CHECK(held == 3);  // three decode-only iterations while the prompt waited
  CHECK(first_token_s(3, 0.5, held) == doctest::Approx(start + mixed).epsilon(1e-12));
  // No decoder to wait beside: an idle engine's prompt runs at once, whatever the setting.
  const std::vector<serve::Request> alone{{0.0, 100, 2}};
  serve::ServerConfig cfg;
  cfg.batch_wait_iters = 20;
  cfg.batch_wait_tokens_ratio = 0.9;
  serve::Worker<LineModel> w(model, alone, cfg, 1 << 20);
  w.arrive(0, 0.0);
  const serve::StepEvents ev = w.step();
  REQUIRE(ev.first_tokens.size() == 1);
  CHECK(ev.end_s == doctest::Approx(LineModel::base + 100 * LineModel::per_row).epsilon(1e-12));
  cfg.batch_wait_tokens_ratio = -1;
  CHECK_THROWS_WITH_AS(serve::Worker<LineModel>(model, alone, cfg, 1 << 20),
                       doctest::Contains("batch_wait_tokens_ratio"), InputError);
}

TEST_CASE("streaming every n tokens: a first token reaches the client with the n-th, or the last if sooner") {
  // One request of a 100-row prompt: its first token comes out of the prefill; streamed
  // every 4 tokens, the client sees it with the 4th, three decodes later; a request of 3
  // tokens with its last.
  LineModel model;
  const double prefill = LineModel::base + 100 * LineModel::per_row, decode = LineModel::base + LineModel::per_decode;
  for (const auto& [osl, interval, decodes] : {std::tuple{10u, 1u, 0}, std::tuple{10u, 4u, 3}, std::tuple{3u, 4u, 2}}) {
    const std::vector<serve::Request> reqs{{0.0, 100, osl}};
    serve::ServerConfig cfg;
    cfg.stream_interval = interval;
    serve::Worker<LineModel> w(model, reqs, cfg, 1 << 20);
    w.arrive(0, 0.0);
    double seen = -1;
    for (int i = 0; i < 20 && seen < 0; ++i) {
      const serve::StepEvents ev = w.step(std::numeric_limits<double>::infinity());  // stretches too
      if (!ev.first_tokens.empty()) seen = ev.end_s;
    }
    CAPTURE(interval);
    CHECK(seen == doctest::Approx(prefill + decodes * decode).epsilon(1e-12));
  }
  serve::ServerConfig both;
  both.stream_interval = 30;
  both.lagged_first_token = true;
  const std::vector<serve::Request> one{{0.0, 100, 4}};
  CHECK_THROWS_WITH_AS(serve::Worker<LineModel>(model, one, both, 1 << 20), doctest::Contains("stream_interval 30"),
                       InputError);
}

TEST_CASE("receiving every n loops: a busy engine sees a request once n decode loops have passed") {
  // One decoder (a 1-row prompt, then 1.1 ms decodes) and a request arriving at 2 ms. Each
  // loop receives without the skipper: the request runs from the iteration at 2.12 ms.
  // Receiving every 3 loops: the loop after the prompt receives (a prompt's loop counts 3),
  // then two decode loops do not, and the third (at 4.32 ms) takes it.
  LineModel model;
  const std::vector<serve::Request> reqs{{0.0, 1, 50}, {2e-3, 100, 2}};
  const double prefill1 = LineModel::base + LineModel::per_row, decode = LineModel::base + LineModel::per_decode;
  for (const auto& [interval, decodes] : {std::pair{1u, 1}, std::pair{3u, 3}}) {
    serve::ServerConfig cfg;
    cfg.recv_interval = interval;
    serve::Worker<LineModel> w(model, reqs, cfg, 1 << 20);
    w.arrive(0, 0.0);
    w.arrive(1, 2e-3);
    double admitted = -1;
    for (int i = 0; i < 10 && admitted < 0; ++i) {
      const serve::StepEvents ev = w.step(std::numeric_limits<double>::infinity());
      for (const std::uint32_t id : ev.admitted)
        if (id == 1) admitted = ev.start_s;
    }
    CAPTURE(interval);
    CHECK(admitted == doctest::Approx(prefill1 + decodes * decode).epsilon(1e-12));
  }
}

TEST_CASE("without chunked prefill a prompt runs whole, and one larger than the budget is refused on arrival") {
  LineModel model;
  const std::vector<serve::Request> reqs{{0.0, 600, 3}, {0.0, 600, 3}, {0.0, 1200, 3}};
  serve::ServerConfig cfg;
  cfg.max_batch_tokens = 1000;
  cfg.chunked_prefill = false;
  serve::Worker<LineModel> w(model, reqs, cfg, 1 << 20);
  w.arrive(0, 0);
  w.arrive(1, 0);
  serve::StepEvents ev = w.step();
  CHECK(ev.first_tokens.size() == 1);  // 600 fits, the next 600 does not fit the 400 left: it waits whole
  CHECK(ev.end_s == doctest::Approx(LineModel::base + 600 * LineModel::per_row));
  ev = w.step();
  CHECK(ev.first_tokens.size() == 1);
  CHECK_THROWS_WITH_AS(w.arrive(2, 0),
                       "request 2: a prompt of 1200 new tokens exceeds max_batch_tokens 1000 and chunked prefill is "
                       "off (it would never run)",
                       InputError);
}

TEST_CASE("a decode-only batch runs at the next captured CUDA-graph size; a mixed or larger one as it is") {
  struct Recording : LineModel {
    std::vector<std::size_t> decodes;
    double iteration_s(const ops::AttentionBatch& b) {
      decodes.push_back(b.decode_kv.size());
      return LineModel::iteration_s(b);
    }
  } model;
  serve::WorkerSetup s{{4096, 16, 1, 0.1}, 1 << 20};
  s.server.cuda_graph_batches = {1, 2, 4, 8};
  serve::Load load = closed_loop(5, 100, 3, 1);  // 5 prompts in one iteration, then 2 decode steps of 5
  const serve::UnitResult r = serve::simulate_aggregated(model, s, load);
  REQUIRE(r.finished == 5);
  // The first round: one mixed iteration (no padding), two decode steps padded 5 -> 8.
  REQUIRE(model.decodes.size() >= 3);
  CHECK(model.decodes[0] == 0);
  CHECK(model.decodes[1] == 8);
  CHECK(model.decodes[2] == 8);
  CHECK(r.tpot_s.p50 == doctest::Approx(LineModel::base + 8 * LineModel::per_decode).epsilon(1e-12));
  s.server.cuda_graph_batches = {1, 2, 4};  // 5 is above the largest: run as it is
  model.decodes.clear();
  serve::simulate_aggregated(model, s, load);
  CHECK(model.decodes[1] == 5);
  s.server.cuda_graph_batches = {4, 2};
  CHECK_THROWS_WITH_AS(serve::simulate_aggregated(model, s, load),
                       "cuda_graph_batches must be ascending batch sizes of at least 1", InputError);
}

TEST_CASE("an eager prompt iteration takes at least its launches' host time; graphs and decode-only ones do not") {
  struct Launching : LineModel {
    double launches() const { return 2000; }  // 2,000 launches at 10 µs: 20 ms of host time
  } model;
  static_assert(serve::CountsLaunches<Launching> && !serve::CountsLaunches<LineModel>);
  serve::WorkerSetup s{{4096, 16, 1, 0.1}, 1 << 20};
  s.server.eager_launch_s = 10e-6;
  const serve::Load load = closed_loop(5, 100, 3, 1);  // 5 prompts (500 rows) in one iteration, then 2 decode steps
  const double gpu_prefill = LineModel::base + 500 * LineModel::per_row;  // 11 ms: the host's 20 ms binds
  const double decode = LineModel::base + 5 * LineModel::per_decode;      // never floored
  serve::UnitResult r = serve::simulate_aggregated(model, s, load);
  CHECK(r.ttft_s.p50 == doctest::Approx(2000 * 10e-6).epsilon(1e-12));
  CHECK(r.tpot_s.p50 == doctest::Approx(decode).epsilon(1e-12));
  s.server.graph_prefill_tokens = 500;  // the prompt iteration replays a captured graph: its GPU time
  r = serve::simulate_aggregated(model, s, load);
  CHECK(r.ttft_s.p50 == doctest::Approx(gpu_prefill).epsilon(1e-12));
  s.server.graph_prefill_tokens = 499;
  CHECK(serve::simulate_aggregated(model, s, load).ttft_s.p50 == doctest::Approx(20e-3).epsilon(1e-12));
  s.server.eager_launch_s = 1e-6;  // 2 ms of host: the GPU's 11 ms binds
  CHECK(serve::simulate_aggregated(model, s, load).ttft_s.p50 == doctest::Approx(gpu_prefill).epsilon(1e-12));
  s.server.eager_launch_s = -1e-6;
  CHECK_THROWS_WITH_AS(serve::simulate_aggregated(model, s, load),
                       "eager_launch_s must be a number of seconds from 0 to 1", InputError);
}

TEST_CASE("framework defaults: each framework's knobs, the GPU-dependent ones, and names") {
  const GpuCatalog gpus = GpuCatalog::load_default();
  const GpuSpec &h100 = gpus.find("h100"), &a100 = gpus.find("a100"), &b200 = gpus.find("b200");
  const serve::FrameworkDefaults v = serve::framework_defaults(serve::Framework::vllm, h100);
  CHECK(v.server.max_batch_tokens == 8192);
  CHECK(serve::framework_defaults(serve::Framework::vllm, a100).server.max_batch_tokens == 2048);  // A100s excepted
  CHECK(v.server.batching == serve::Batching::mixed);
  CHECK(v.server.chunked_prefill);
  CHECK(v.server.kv_block == 16);
  const std::vector<std::uint32_t>& g = v.server.cuda_graph_batches;  // 1, 2, 4, 8, ..., 256, 272, ..., 512
  CHECK(g.size() == 3 + 32 + 16);
  CHECK(std::is_sorted(g.begin(), g.end()));
  CHECK(std::find(g.begin(), g.end(), 248) != g.end());
  CHECK(std::find(g.begin(), g.end(), 264) == g.end());
  CHECK(g.back() == 512);
  CHECK(serve::framework_defaults(serve::Framework::sglang, h100).server.cuda_graph_batches.back() == 256);
  CHECK(serve::framework_defaults(serve::Framework::sglang, b200).server.cuda_graph_batches.back() == 512);
  const serve::FrameworkDefaults sg = serve::framework_defaults(serve::Framework::sglang, h100);
  CHECK(sg.server.batching == serve::Batching::prefill_first);
  CHECK(sg.server.max_batch_tokens == 8192);
  CHECK(serve::framework_defaults(serve::Framework::sglang, b200).server.max_batch_tokens == 16384);
  CHECK(sg.server.reserve_fraction > 0.1);  // at least 10 GiB kept back on an 80 GB GPU
  const serve::FrameworkDefaults t = serve::framework_defaults(serve::Framework::trtllm, h100);
  CHECK_FALSE(t.server.chunked_prefill);
  CHECK(t.server.lagged_first_token);
  CHECK(t.server.kv_block == 32);
  CHECK(t.server.cuda_graph_batches.empty());  // enable_padding False
  const serve::FrameworkDefaults ideal = serve::framework_defaults(serve::Framework::ideal, h100);
  CHECK(ideal.server.frontend_s == 0);
  CHECK_FALSE(ideal.server.lagged_first_token);
  CHECK_FALSE(ideal.server.overlap_scheduling);
  for (const serve::Framework f : {serve::Framework::trtllm, serve::Framework::vllm, serve::Framework::sglang})
    CHECK(serve::framework_defaults(f, h100).server.overlap_scheduling);  // each schedules one batch ahead
  // Every framework names a source for every knob.
  for (const serve::Framework f :
       {serve::Framework::ideal, serve::Framework::trtllm, serve::Framework::vllm, serve::Framework::sglang}) {
    const serve::FrameworkDefaults d = serve::framework_defaults(f, h100);
    for (const std::string_view src : {d.max_batch_tokens_source, d.batching_source, d.chunked_prefill_source,
                                       d.kv_block_source, d.reserve_source, d.first_token_source,
                                       d.cuda_graph_source, d.overlap_source, d.eager_source})
      CHECK_FALSE(src.empty());
    CHECK(serve::parse_framework(serve::name(f)) == f);
  }
  CHECK(serve::parse_framework("tensorrt-llm") == serve::Framework::trtllm);
  CHECK_FALSE(serve::parse_framework("llamacpp").has_value());
}
