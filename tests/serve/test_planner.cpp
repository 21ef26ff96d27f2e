// The deployment search (serve::Planner) as laws: more GPUs never lower the best total
// tokens/s at a fixed SLA, a looser SLA never lowers it, and at concurrency 1 the
// lowest-latency deployment uses the most TP; plus its impossible inputs, sharding and
// the iteration memo's exactness; and a candidate pinned alone (serve::UnitSimulator, what
// `costdsl simulate` runs) gives the search's row for it; a MoE family whose make picks
// the TP-expert arch at ep 1 is also searched at {tp, ep 1}, the EP layouts' rows unchanged.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <variant>
#include <vector>

#include "costdsl/archs/llama3.hpp"
#include "costdsl/archs/qwen3_moe.hpp"
#include "costdsl/data_dir.hpp"
#include "costdsl/load_hf_config.hpp"
#include "costdsl/load_timing.hpp"
#include "costdsl/serve/any_model.hpp"
#include "costdsl/serve/arch_family.hpp"
#include "costdsl/serve/grain_family.hpp"
#include "costdsl/serve/planner.hpp"
#include "costdsl/serve/unit_simulator.hpp"

using namespace costdsl;

namespace {

const Timing& h200() {
  static const Timing t = load_timing("h200", TimingMode::roofline);
  return t;
}

HfConfig model_config(const std::string& name) {
  return load_hf_config(default_data_dir() / "models" / (name + ".json"));
}

auto llama_family(const HfConfig& hf) {
  return serve::ArchFamily(
      [&hf](serve::Parallel p) { return archs::Llama3<archs::Llama3Config>(archs::Llama3Config::from_hf(hf, {.tp = p.tp})); },
      false, h200());
}

// A small search: short requests keep every simulation short.
serve::PlanSpec small_spec(std::uint32_t gpus) {
  serve::PlanSpec s;
  s.gpus = gpus;
  s.input_tokens = 1024;
  s.output_tokens = 32;
  s.token_budgets = {2048};
  s.max_batch = 64;
  s.max_workers = 3;
  s.sla.ttft_s = 0.25;
  s.sla.tpot_s = 0.012;
  return s;
}

double best_total(const serve::PlanResult& res) {
  double best = 0;
  for (const auto& r : res.rows)
    if (r.status == serve::Status::meets) best = std::max(best, r.tokens_per_s());
  return best;
}

// Field by field: the rows' padding bytes are not part of their value.
bool same(const serve::Percentiles& a, const serve::Percentiles& b) {
  return a.p50 == b.p50 && a.p90 == b.p90 && a.p99 == b.p99 && a.mean == b.mean;
}
bool same(const serve::PlanRow& a, const serve::PlanRow& b) {
  const serve::Candidate &x = a.c, &y = b.c;
  return a.job == b.job && a.status == b.status && a.sla_ratio == b.sla_ratio && x.mode == y.mode &&
         x.worker == y.worker && x.prefill == y.prefill && x.prefill_workers == y.prefill_workers &&
         x.decode_workers == y.decode_workers && x.unit_gpus == y.unit_gpus && x.replicas == y.replicas &&
         x.batch == y.batch && x.token_budget == y.token_budget && x.clients == y.clients && x.rate == y.rate &&
         x.transfer_s == y.transfer_s && same(a.r.ttft_s, b.r.ttft_s) && same(a.r.tpot_s, b.r.tpot_s) &&
         same(a.r.e2e_s, b.r.e2e_s) && a.r.output_tokens_per_s == b.r.output_tokens_per_s &&
         a.r.tokens_per_s_user == b.r.tokens_per_s_user && a.r.in_flight == b.r.in_flight &&
         a.r.measured == b.r.measured && a.r.finished == b.r.finished && a.r.stopped_early == b.r.stopped_early &&
         a.r.iterations == b.r.iterations && a.r.sim_time_s == b.r.sim_time_s;
}
bool same(const std::vector<serve::PlanRow>& a, const std::vector<serve::PlanRow>& b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](const auto& x, const auto& y) { return same(x, y); });
}

serve::PlanResult search(serve::ModelSource& models, const serve::PlanSpec& spec) {
  serve::Planner planner(models, h200(), spec);
  return {planner.run()};
}

}  // namespace

TEST_CASE("law: the best total tokens/s at a fixed SLA never falls when GPUs are added") {
  const HfConfig hf = model_config("llama3_8b");
  auto models = llama_family(hf);
  double previous = 0;
  for (std::uint32_t gpus = 1; gpus <= 6; ++gpus) {
    const serve::PlanResult res = search(models, small_spec(gpus));
    const double best = best_total(res);
    INFO("gpus " << gpus << ": best " << best << ", previous " << previous);
    CHECK(best > 0);
    CHECK(best >= previous);
    previous = best;
  }
}

TEST_CASE("law: a looser SLA never lowers the best tokens/s") {
  const HfConfig hf = model_config("llama3_8b");
  auto models = llama_family(hf);
  double previous = 0;
  // From tight to loose, each target at least as loose as before, then none at all.
  for (const double scale : {0.6, 1.0, 1.5, 3.0, 0.0}) {
    serve::PlanSpec spec = small_spec(4);
    if (scale > 0) {
      spec.sla.ttft_s *= scale;
      spec.sla.tpot_s *= scale;
    } else {
      spec.sla = serve::Sla{};
    }
    const double best = best_total(search(models, spec));
    INFO("SLA scale " << scale << ": best " << best << ", previous " << previous);
    CHECK(best >= previous);
    previous = best;
  }
  CHECK(previous > 0);
}

TEST_CASE("law: at concurrency 1 the lowest-latency deployment uses the most TP") {
  for (const char* name : {"llama3_8b", "llama3_70b"}) {
    const HfConfig hf = model_config(name);
    auto models = llama_family(hf);
    serve::PlanSpec spec = small_spec(8);
    spec.sla = serve::Sla{};
    spec.aggregated = true;
    spec.disaggregated = false;
    spec.load = serve::PlanSpec::LoadMode::concurrency;
    spec.concurrency = 1;
    const serve::PlanResult res = search(models, spec);
    REQUIRE(!res.rows.empty());
    const auto fastest = std::min_element(res.rows.begin(), res.rows.end(), [](const auto& a, const auto& b) {
      return a.r.e2e_s.mean < b.r.e2e_s.mean;
    });
    std::uint32_t most_tp = 0;
    for (const auto& r : res.rows) most_tp = std::max(most_tp, r.c.worker.tp);
    INFO(name << ": the fastest runs tp " << fastest->c.worker.tp);
    CHECK(most_tp == 8);
    CHECK(fastest->c.worker.tp == most_tp);
  }
}

TEST_CASE("impossible inputs are errors naming the rule, with the bytes when the model does not fit") {
  const HfConfig big = model_config("llama3_405b");
  auto models = llama_family(big);
  serve::PlanSpec spec = small_spec(1);
  CHECK_THROWS_WITH_AS(search(models, spec),
                       doctest::Contains("the model does not fit on 1 x h200_sxm: its leanest deployment (tp 1, 1 "
                                         "GPU) needs 811.7 GB of weights per GPU; a h200_sxm has 151.4 GB, 136.3 GB "
                                         "after the 10% reserve"),
                       InputError);
  spec.gpus = 0;
  CHECK_THROWS_WITH_AS(search(models, spec), "--gpus 0: a deployment needs at least 1 GPU", InputError);
  const HfConfig hf = model_config("llama3_70b");
  auto seventy = llama_family(hf);
  spec = small_spec(8);
  spec.input_tokens = 8000;
  spec.output_tokens = 500;
  spec.context_tokens = 8192;
  CHECK_THROWS_WITH_AS(search(seventy, spec),
                       "--isl 8000 + --osl 500 = 8500 tokens exceeds the model's context (max_position_embeddings 8192)",
                       InputError);
  spec = small_spec(8);
  spec.output_tokens = 1;
  CHECK_THROWS_WITH_AS(search(seventy, spec), "--osl 1: must be at least 2 (TPOT is the time between output tokens)",
                       InputError);
  spec = small_spec(8);
  spec.cached_tokens = 1024;
  CHECK_THROWS_WITH_AS(search(seventy, spec),
                       "--prefix 1024 must be below --isl 1024 (the last prompt token is always computed)", InputError);
}

TEST_CASE("sharded jobs merged in job order give the single run's rows exactly") {
  const HfConfig hf = model_config("llama3_8b");
  auto models = llama_family(hf);
  serve::Planner planner(models, h200(), small_spec(4));
  const std::vector<serve::PlanRow> whole = planner.run();
  std::vector<serve::PlanRow> merged = planner.run(0, 3);
  for (std::size_t shard = 1; shard < 3; ++shard) {
    const auto part = planner.run(shard, 3);
    merged.insert(merged.end(), part.begin(), part.end());
  }
  std::stable_sort(merged.begin(), merged.end(), [](const auto& a, const auto& b) { return a.job < b.job; });
  REQUIRE(merged.size() == whole.size());
  CHECK(same(merged, whole));
  CHECK(planner.jobs().size() > 3);
}

TEST_CASE("remembering iteration times by batch changes no figure (DP-attention MoE)") {
  const HfConfig hf = model_config("qwen3_30b_a3b");
  const auto make = [&hf](serve::Parallel p) {
    return archs::Qwen3Moe<archs::Qwen3MoeConfig>(archs::Qwen3MoeConfig::from_hf(hf, {.tp = p.tp, .ep = p.ep}));
  };
  serve::ArchFamily memo(make, true, h200(), {}, serve::Memo::always);
  serve::ArchFamily plain(make, true, h200(), {}, serve::Memo::never);
  serve::PlanSpec spec = small_spec(4);
  spec.disaggregated = false;
  spec.max_tp = 1;
  const auto a = search(memo, spec), b = search(plain, spec);
  REQUIRE(a.rows.size() == b.rows.size());
  CHECK(same(a.rows, b.rows));
  std::uint64_t hits = 0;
  const serve::Planner planner(memo, h200(), spec);
  for (const auto& o : planner.options()) hits += memo.model(o.p).memo_hits();
  CHECK(hits > 0);
  CHECK(memo.model({1, 4}).memoized());
  CHECK_FALSE(plain.model({1, 4}).memoized());
}

TEST_CASE("the iteration memo pauses after a window of lookups without a hit, and no figure changes") {
  const HfConfig hf = model_config("qwen3_30b_a3b");
  const auto arch = archs::Qwen3Moe<archs::Qwen3MoeConfig>(archs::Qwen3MoeConfig::from_hf(hf, {.tp = 1, .ep = 4}));
  serve::AnyModel memo = serve::AnyModel::of_arch(arch, h200(), {}, true);
  serve::AnyModel plain = serve::AnyModel::of_arch(arch, h200(), {}, false);
  std::vector<std::uint32_t> kv(8);
  // Batch i: 8 decodes at KV lengths 100 + i .. 107 + i, a new batch for every i.
  const auto time = [&](serve::AnyModel& m, std::uint32_t i) {
    for (std::uint32_t r = 0; r < kv.size(); ++r) kv[r] = 100 + i + r;
    return m.iteration_s(ops::AttentionBatch{{}, kv});
  };
  bool same = true;
  for (std::uint32_t i = 0; i < 1024; ++i) same = same && time(memo, i) == time(plain, i);
  CHECK(same);
  // A window of 1,024 lookups without a hit: the next 15,360 iterations are evaluated, batch 0 again included.
  CHECK(time(memo, 0) == time(plain, 0));
  CHECK(memo.memo_hits() == 0);
  for (std::uint32_t i = 1; i < 15 * 1024; ++i) same = same && time(memo, 2048 + i) == time(plain, 2048 + i);
  CHECK(same);
  // The pause over, lookups resume and answer the batches remembered before it.
  CHECK(time(memo, 1) == time(plain, 1));
  CHECK(memo.memo_hits() == 1);
  CHECK(memo.calls() == 16 * 1024 + 1);
}

TEST_CASE("KV-parallel decode workers: hp is searched for decode workers only, beside tp") {
  const HfConfig hf = model_config("llama3_70b");
  serve::GrainFamily family(
      [&hf](serve::Parallel p) { return archs::Llama3<archs::Llama3Config>(archs::Llama3Config::from_hf(hf, {.tp = p.tp})); },
      [&hf](serve::Parallel p) {
        return archs::Llama3<archs::Llama3Config, archs::AttnGrain::hptp>(
            archs::Llama3Config::from_hf(hf, {.tp = p.tp, .hp = p.hp}));
      },
      false, h200());
  // 24 GPUs, NVLink domains of 16: a tp 8 prefill worker beside a tp 8 × hp 2 decode worker
  // (16 GPUs, which tp alone cannot use: 8 KV heads).
  serve::PlanSpec spec = small_spec(24);
  spec.gpus_per_node = 16;
  spec.input_tokens = 16384;
  spec.output_tokens = 8;
  spec.token_budgets = {16384};
  spec.max_batch = 4;
  spec.max_workers = 1;
  spec.hps = {2};
  spec.sla = {};
  serve::Planner planner(family, h200(), spec);
  bool has_hp = false;
  for (const auto& o : planner.options()) {
    if (o.p.hp == 1) continue;
    has_hp = true;
    CHECK(o.p.hp == 2);
    CHECK(o.f.gpus == 2 * o.p.tp);  // hp × tp GPUs
    CHECK(!o.prefill);              // never a prefill worker
  }
  CHECK(has_hp);
  bool decoded_with_hp = false;
  for (const serve::PlanRow& r : planner.run()) {
    if (r.c.mode == serve::Mode::aggregated) CHECK(r.c.worker.hp == 1);
    if (r.c.mode == serve::Mode::disaggregated) {
      CHECK(r.c.prefill.hp == 1);
      decoded_with_hp = decoded_with_hp || r.c.worker.hp == 2;
    }
  }
  CHECK(decoded_with_hp);
  // A family without a KV-parallel grain rejects an hp search.
  auto dense = llama_family(hf);
  serve::PlanSpec bad = small_spec(8);
  bad.hps = {1, 2};
  CHECK_THROWS_WITH_AS(serve::Planner(dense, h200(), bad),
                       "--hp: this model family has no KV-parallel attention grain, so the deployment search takes hp 1 "
                       "only",
                       InputError);
}

TEST_CASE("a candidate pinned alone gives the search's row for it, aggregated and disaggregated") {
  const HfConfig hf = model_config("llama3_8b");
  auto family = llama_family(hf);
  serve::PlanSpec spec = small_spec(4);
  spec.sla = {};  // every batch cap runs
  serve::Planner planner(family, h200(), spec);
  const std::vector<serve::PlanRow> rows = planner.run();
  auto pinned_family = llama_family(hf);  // its own trees: nothing shared with the search
  serve::UnitSimulator units(pinned_family, h200(), spec);
  std::size_t agg = 0, disagg = 0;
  for (const serve::PlanRow& row : rows) {
    if ((row.c.mode == serve::Mode::aggregated ? agg : disagg) >= 3) continue;
    ++(row.c.mode == serve::Mode::aggregated ? agg : disagg);
    // What a user pins: the layout, the batch cap, the budget, the replicas and the clients.
    serve::Candidate c;
    c.mode = row.c.mode;
    c.prefill_workers = row.c.prefill_workers;
    c.decode_workers = row.c.decode_workers;
    c.batch = row.c.batch;
    c.token_budget = row.c.token_budget;
    c.replicas = row.c.replicas;
    c.clients = row.c.clients;
    const auto worker = units.option(row.c.worker);
    const auto prefill = units.option(row.c.prefill);
    REQUIRE(worker);
    REQUIRE(prefill);
    serve::PlanRow alone = units.run(c, *worker, row.c.mode == serve::Mode::aggregated ? nullptr : &*prefill);
    alone.job = row.job;
    CAPTURE(row.c.batch);
    CHECK(same(alone, row));
  }
  CHECK(agg == 3);
  CHECK(disagg == 3);
}

TEST_CASE("TP experts: a family whose make picks the arch per layout is searched at {tp, ep 1}, EP rows unchanged") {
  const HfConfig hf = model_config("qwen3_30b_a3b");
  using Ep = archs::Qwen3Moe<archs::Qwen3MoeConfig>;
  using Tp = archs::Qwen3Moe<archs::Qwen3MoeConfig, worklets::ExpertGrain::tp>;
  const auto ep_only = [&hf](serve::Parallel p) { return Ep(archs::Qwen3MoeConfig::from_hf(hf, {.tp = p.tp, .ep = p.ep})); };
  const auto by_grain = [&hf](serve::Parallel p) -> std::variant<Ep, Tp> {
    const archs::Qwen3MoeConfig c = archs::Qwen3MoeConfig::from_hf(hf, {.tp = p.tp, .ep = p.ep});
    if (c.ep == 1 && c.tp > 1) return Tp(c);
    return Ep(c);
  };
  serve::ArchFamily plain(ep_only, true, h200());
  serve::ArchFamily grains(by_grain, true, h200());
  // The TP-expert worker: its tp GPUs, one KV pool, a quarter of every expert per GPU as
  // ep 4 holds a quarter of the experts.
  const auto f = grains.facts({4, 1});
  REQUIRE(f);
  CHECK(f->gpus == 4);
  CHECK(f->kv_groups == 1);
  CHECK(f->weight_bytes_per_gpu == plain.facts({4, 4})->weight_bytes_per_gpu);
  std::string why;
  CHECK_FALSE(plain.facts({4, 1}, &why));  // an EP-only family rejects the layout
  CHECK(why == "tp 4 does not divide ep 1");

  serve::PlanSpec spec = small_spec(4);
  spec.disaggregated = false;
  const serve::Planner with_tp(grains, h200(), spec);
  std::vector<serve::Parallel> tp_layouts;
  for (const auto& o : with_tp.options())
    if (o.p.ep == 1 && o.p.tp > 1) tp_layouts.push_back(o.p);
  CHECK(tp_layouts == std::vector<serve::Parallel>{{2, 1}, {4, 1}});
  const serve::PlanResult a = search(plain, spec), b = search(grains, spec);
  std::vector<serve::PlanRow> ep_rows;
  for (const serve::PlanRow& r : b.rows)
    if (!(r.c.worker.ep == 1 && r.c.worker.tp > 1)) ep_rows.push_back(r);
  CHECK(ep_rows.size() < b.rows.size());
  CHECK(same(a.rows, ep_rows));
  // Pinned to the TP-expert layout alone, the search runs it and nothing else.
  spec.workers = {{4, 1}};
  const serve::PlanResult pinned = search(grains, spec);
  REQUIRE_FALSE(pinned.rows.empty());
  for (const serve::PlanRow& r : pinned.rows) CHECK(r.c.worker == serve::Parallel{4, 1});
}

TEST_CASE("a request's fixed state counts wherever the search asks whether a request fits") {
  // A worker whose pool holds a request's KV but not its KV and its recurrent state: the
  // footprint the worker reserves, and the one the fit checks ask for, are the same.
  serve::WorkerOption o;
  o.f.kv_bytes_per_token_per_gpu = 1000;
  o.f.state_bytes_per_request_per_gpu = 10'500;  // 10.5 tokens' worth: 11 whole tokens
  o.kv_tokens_per_group = 70;
  CHECK(o.state_tokens() == 11);
  CHECK(o.request_tokens(64) == 75);
  CHECK(o.kv_tokens_per_group < o.request_tokens(64));  // KV alone (64) would have fitted
  serve::ServerConfig cfg;
  cfg.kv_block = 16;
  cfg.state_tokens = o.state_tokens();
  const std::vector<serve::Request> reqs{{0, 40, 24, 0}};
  struct Zero {
    double iteration_s(const ops::AttentionBatch&) { return 1e-3; }
    double kv_bytes_per_token_per_gpu() const { return 1000; }
    double weight_bytes_per_gpu() const { return 0; }
  } model;
  serve::Worker<Zero> w(model, reqs, cfg, o.kv_tokens(), serve::Role::aggregated, 1);
  CHECK(w.footprint(reqs[0]) == o.request_tokens(64));
  o.f.state_bytes_per_request_per_gpu = 0;
  CHECK(o.request_tokens(64) == 64);
}

TEST_CASE("a drained warm-up counts the clients' first requests; the requests simulated are the same") {
  // aiperf's protocol: the measured requests start together on an idle engine. Under a
  // first-round warm-up the same requests run (a round more measured there is a round
  // dropped here), so the trajectory is one: the policy changes what is counted only.
  const HfConfig hf = model_config("llama3_8b");
  auto family = llama_family(hf);
  serve::PlanSpec spec = small_spec(1);
  spec.sla = {};
  serve::Candidate c;
  c.batch = 8;
  c.clients = 8;
  c.token_budget = 2048;  // two 1,024-token prompts per iteration: a round's prompts queue
  c.replicas = 1;
  const auto run = [&](serve::PlanSpec::Warmup w, std::uint32_t rounds) {
    serve::PlanSpec s = spec;
    s.warmup = w;
    s.rounds = rounds;
    serve::UnitSimulator units(family, h200(), s);
    const auto worker = units.option(serve::Parallel{});
    REQUIRE(worker);
    return units.run(c, *worker, nullptr);
  };
  const serve::PlanRow drained = run(serve::PlanSpec::Warmup::drained, 4);
  const serve::PlanRow steady = run(serve::PlanSpec::Warmup::first_round, 3);
  CHECK(drained.r.warmup == 0);
  CHECK(drained.r.measured == 32);
  CHECK(steady.r.warmup == 8);
  CHECK(steady.r.measured == 24);
  CHECK(drained.r.iterations == steady.r.iterations);
  CHECK(drained.r.sim_time_s == steady.r.sim_time_s);
  // The first round waits behind its own prompts (four iterations of two), later rounds do not.
  CHECK(drained.r.ttft_s.p99 > 1.5 * steady.r.ttft_s.p99);
  CHECK(drained.r.ttft_s.mean > steady.r.ttft_s.mean);
  // Fewer than 16 requests are never measured, whatever the rounds.
  CHECK(run(serve::PlanSpec::Warmup::drained, 1).r.measured == 16);
}
