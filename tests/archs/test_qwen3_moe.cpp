#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <numeric>
#include <vector>

#include "costdsl/costdsl.hpp"
#include "costdsl/archs/qwen3_moe.hpp"
#include "costdsl/load_hf_config.hpp"
#include "costdsl/ops/moe/dispatch_combine.hpp"
#include "costdsl/ops/moe/routing.hpp"
#include "costdsl/worklets/moe_shared_expert.hpp"

#include "feed_law.hpp"
#include "tp_experts_law.hpp"
#include "../moe/batches.hpp"

using namespace costdsl;
using namespace costdsl::archs;
namespace moe = costdsl::ops::moe;

using moe_test::Batches;
using moe_test::roofline_h200;

TEST_CASE("one tree type serves every DP degree: dp = ep / tp is data") {
  const Timing& t = roofline_h200();
  const Qwen3Moe<Qwen3MoeConfig> dp2(deploy(qwen3_235b_a22b, {.tp = 4, .ep = 8})), dp8(deploy(qwen3_235b_a22b, {.tp = 1, .ep = 8}));
  static_assert(std::is_same_v<decltype(dp2.build(t)), decltype(dp8.build(t))>);
  CHECK(dp8.resolved().dp == 8);
  const auto tree = dp8.build(t);
  const Batches b(8);
  std::array<Metrics, n_slots<decltype(tree)>> row{};
  const Metrics m = evaluate(tree, dp8.inputs(b.it()), row);
  // Group 0 holds the prefill, so it is the slowest: the attention rows are its times.
  const std::size_t prefill = 2 + 6;  // embed (and its gated all-reduce), then dp.attn.{input_norm qkv q_norm k_norm rope append} prefill
  REQUIRE(std::string(slot_paths<decltype(tree)>[prefill]) == "model.layer.dp.attn.prefill");
  CHECK(row[prefill].time_s > 0);
  // Every group's decodes count as work: 8 groups of 8 decodes do the work of 64.
  const Batches one_group(1);
  const Qwen3Moe<Qwen3MoeConfig> dp1(deploy(qwen3_235b_a22b, {.tp = 1, .ep = 1}));
  std::array<Metrics, n_slots<decltype(tree)>> row1{};
  evaluate(dp1.build(t), dp1.inputs(one_group.it()), row1);
  CHECK(row[prefill + 1].flops == doctest::Approx(row1[prefill + 1].flops));  // dp.attn.decode
  CHECK(m.time_s < evaluate(dp1.build(t), dp1.inputs(one_group.it())).time_s);  // spread over 8 groups, faster
  const nlohmann::json j = to_json(make_manifest(tree));
  CHECK(std::count_if(j["nodes"].begin(), j["nodes"].end(), [](const auto& n) { return n.contains("ranks"); }) == 3);
}

TEST_CASE("Qwen3-MoE: static and run-time forms agree (235B at tp 4 / ep 8, 30B at tp 1 / ep 4)") {
  const Timing& t = roofline_h200();
  {  // tp 4, ep 8, dp 2: identical shapes, so identical manifests.
    const Qwen3Moe<Fixed<deploy(qwen3_235b_a22b, {.tp = 4, .ep = 8})>> s;
    const Qwen3Moe<Qwen3MoeConfig> r(deploy(qwen3_235b_a22b, {.tp = 4, .ep = 8}));
    const auto st = s.build(t);
    const auto rt = r.build(t);
    for (double skew : {0.0, 1.2}) {
      const Batches b(2);
      CHECK(evaluate(st, s.inputs(b.it({skew}))) == evaluate(rt, r.inputs(b.it({skew}))));
    }
    CHECK(to_json(make_manifest(st)) == to_json(make_manifest(rt)));
  }
  {  // tp 1, ep 8, dp 8: the run-time form keeps the group's gated collectives (zero), the static one drops them.
    const Qwen3Moe<Fixed<deploy(qwen3_30b_a3b, {.tp = 1, .ep = 8})>> s;
    const Qwen3Moe<Qwen3MoeConfig> r(deploy(qwen3_30b_a3b, {.tp = 1, .ep = 8}));
    const auto st = s.build(t);
    const auto rt = r.build(t);
    static_assert(n_slots<decltype(rt)> == n_slots<decltype(st)> + 3);
    for (double skew : {0.0, 1.2}) {
      const Batches b(8);
      CHECK(evaluate(st, s.inputs(b.it({skew}))) == evaluate(rt, r.inputs(b.it({skew}))));
    }
    nlohmann::json rs = to_json(make_manifest(rt))["slots"], kept = nlohmann::json::array();
    for (const auto& slot : rs)
      if (slot["name"] != "model.layer.dp.attn.tp_allreduce" && slot["name"] != "model.dp.embed.tp_allreduce" &&
          slot["name"] != "model.dp.lm_head.tp_allgather")
        kept.push_back(slot);
    CHECK(kept == to_json(make_manifest(st))["slots"]);
  }
}

TEST_CASE("inputs(it, scratch) equals inputs(it); warm, a dealt iteration allocates nothing (issue 7)") {
  const Qwen3Moe<Fixed<deploy(qwen3_30b_a3b, {.tp = 1, .ep = 8})>> s;
  const Qwen3Moe<Qwen3MoeConfig> r(deploy(qwen3_235b_a22b, {.tp = 1, .ep = 8}));
  const std::vector<ops::PrefillChunk> prefill{{0, 4096}, {100, 300}};
  const std::vector<std::uint32_t> decode(61, 2048);
  arch_test::check_feed_law(s, r, roofline_h200(), {prefill, decode}, moe::Routing{1.2});
}

TEST_CASE("dealt groups with the same requests are evaluated once per run, with the result of every group") {
  const Qwen3Moe<Qwen3MoeConfig> r(deploy(qwen3_235b_a22b, {.tp = 1, .ep = 8}));
  const auto tree = r.build(roofline_h200());
  using Tree = decltype(tree);
  const Batches b(8);  // group 0: the prefill and 8 decodes; groups 1-7: 8 decodes each (one run)
  InputScratch scratch;
  std::array<Metrics, n_slots<Tree>> row_owned{}, row_runs{};
  const auto in_runs = r.inputs(b.it(), scratch);
  CHECK(costdsl::detail::get<0>(in_runs.items).value.runs.size() == 2);  // the embed fan-out: [group 0] [groups 1-7]
  CHECK(evaluate(tree, in_runs, row_runs) == evaluate(tree, r.inputs(b.it()), row_owned));
  CHECK(row_runs == row_owned);
  CHECK(evaluate_balanced(tree, r.inputs(b.it(), scratch)) == evaluate_balanced(tree, r.inputs(b.it())));
}

TEST_CASE("evaluate_many over dealt iterations equals evaluate() per iteration") {
  const Qwen3Moe<Qwen3MoeConfig> r(deploy(qwen3_235b_a22b, {.tp = 1, .ep = 8}));
  const auto tree = r.build(roofline_h200());
  std::vector<Batches> batches;
  for (std::size_t decodes : {8, 13, 64, 100}) batches.emplace_back(8, decodes, 1024);
  std::vector<decltype(r.inputs(batches[0].it()))> in;
  for (const Batches& b : batches) in.push_back(r.inputs(b.it(moe::Routing{0.8})));
  std::vector<Metrics> out(in.size());
  evaluate_many(tree, std::span(in), std::span(out));
  for (std::size_t i = 0; i < in.size(); ++i) CHECK(out[i] == evaluate(tree, in[i]));
}

TEST_CASE("slot count is independent of the batch and the routing") {
  const Qwen3Moe<Fixed<deploy(qwen3_235b_a22b, {.tp = 4, .ep = 8})>> arch;
  const auto tree = arch.build(roofline_h200());
  using Tree = decltype(tree);
  // embed 2 + layer (attn 10 + router 2 + moe 5) + lm_head 3: the same for 1 token or 10^5, and for any dp.
  static_assert(n_slots<Tree> == 2 + 12 + 5 + 3);
  std::array<Metrics, n_slots<Tree>> small{}, big{};
  const Batches tiny(2, 1), large(2, 512);
  evaluate(tree, arch.inputs(tiny.it()), small);
  const Metrics m = evaluate(tree, arch.inputs(large.it({1.0})), big);
  CHECK(m.time_s > 0);
  CHECK(std::string(slot_paths<Tree>[14]) == "model.layer.moe.dispatch");
  CHECK(std::string(slot_paths<Tree>[15]) == "model.layer.moe.experts");
  // The busiest DP group sets the attention time: group 0 holds the prefill.
  CHECK(big[8].time_s > 0);  // dp.attn.prefill
}

TEST_CASE("plausible H200 iteration times: one 4096-token prefill chunk + 64 decodes at 2048 KV") {
  const Timing& t = roofline_h200();
  {  // Qwen3-30B-A3B on one H200.
    const Qwen3Moe<Fixed<deploy(qwen3_30b_a3b)>> arch;
    const Metrics m = evaluate(arch.build(t), arch.inputs(Batches(1).it()));
    MESSAGE("Qwen3-30B-A3B, 1 x H200: " << m.time_ms() << " ms");
    CHECK(m.time_ms() > 20);
    CHECK(m.time_ms() < 200);
    CHECK(has(m.coverage, Coverage::analytic));
  }
  {  // Qwen3-235B-A22B on 8 H200s at tp 4 / ep 8: the prefill on group 0, the decodes split.
    const Qwen3Moe<Fixed<deploy(qwen3_235b_a22b, {.tp = 4, .ep = 8})>> arch;
    const auto tree = arch.build(t);
    const Batches b(2);
    const Metrics uniform = evaluate(tree, arch.inputs(b.it()));
    const Metrics skewed = evaluate(tree, arch.inputs(b.it({1.0})));
    MESSAGE("Qwen3-235B-A22B, tp 4 / ep 8: " << uniform.time_ms() << " ms uniform, " << skewed.time_ms()
                                             << " ms at exponent 1");
    CHECK(uniform.time_ms() > 30);
    CHECK(uniform.time_ms() < 400);
    CHECK(skewed.time_s > uniform.time_s);  // imbalance costs time...
    CHECK(skewed.flops == uniform.flops);   // ...not work
  }
}


TEST_CASE("DpDeal deals round-robin: prefill chunks first, the decodes continuing the deal") {
  DpDeal deal;  // one object across every case: its buffers are reused, larger and smaller
  for (const std::uint64_t dp : {1u, 2u, 3u, 8u}) {
    for (const std::size_t n_prefill : {0u, 1u, 2u, 5u}) {
      for (const std::size_t n_decode : {0u, 1u, 7u, 64u}) {
        CAPTURE(dp);
        CAPTURE(n_prefill);
        CAPTURE(n_decode);
        std::vector<ops::PrefillChunk> prefill;
        for (std::uint32_t i = 0; i < n_prefill; ++i) prefill.push_back({100 * i, 10 + i});
        std::vector<std::uint32_t> decode(n_decode);
        std::iota(decode.begin(), decode.end(), 1000u);
        // The reference: one request at a time to the next group.
        std::vector<std::vector<ops::PrefillChunk>> want_prefill(dp);
        std::vector<std::vector<std::uint32_t>> want_decode(dp);
        std::size_t next = 0;
        for (const auto& c : prefill) want_prefill[next++ % dp].push_back(c);
        for (const std::uint32_t kv : decode) want_decode[next++ % dp].push_back(kv);
        const MoeIteration it = deal.deal({prefill, decode}, dp);
        REQUIRE(it.groups.size() == dp);
        for (std::size_t g = 0; g < dp; ++g) {
          CAPTURE(g);
          REQUIRE(it.groups[g].prefill.size() == want_prefill[g].size());
          for (std::size_t i = 0; i < want_prefill[g].size(); ++i) {
            CHECK(it.groups[g].prefill[i].prefix_len == want_prefill[g][i].prefix_len);
            CHECK(it.groups[g].prefill[i].append_len == want_prefill[g][i].append_len);
          }
          CHECK(std::vector<std::uint32_t>(it.groups[g].decode_kv.begin(), it.groups[g].decode_kv.end()) ==
                want_decode[g]);
        }
      }
    }
  }
  CHECK_THROWS_AS(deal.deal({}, 0), InputError);
}

TEST_CASE("Qwen3-MoE with TP experts (ep 1 over tp 4): one attention group, experts split by width; tp 1 is EP at ep 1") {
  constexpr Qwen3MoeConfig sharded = deploy(qwen3_235b_a22b, {.tp = 4, .ep = 1});
  using TpExperts = Qwen3Moe<Qwen3MoeConfig, worklets::ExpertGrain::tp>;
  static_assert(std::is_same_v<Qwen3Moe<Fixed<sharded>>, Qwen3Moe<Fixed<sharded>, worklets::ExpertGrain::tp>>);
  arch_test::check_tp_experts<Qwen3Moe<Fixed<sharded>>, TpExperts, Qwen3Moe<Qwen3MoeConfig>>(sharded, deploy(qwen3_235b_a22b),
                                                                                              {"model.layer.moe"});
  // A quarter of every expert per GPU holds what ep 4 (one whole quarter of the experts) holds.
  const Qwen3Moe<Qwen3MoeConfig> ep4(deploy(qwen3_235b_a22b, {.tp = 4, .ep = 4}));
  CHECK(TpExperts(sharded).weight_bytes_per_gpu() == ep4.weight_bytes_per_gpu());
  CHECK(TpExperts(sharded).kv_bytes_per_token_per_gpu() == ep4.kv_bytes_per_token_per_gpu());
  // The width split is checked by the arch, before its worklets: field, value, rule.
  Qwen3MoeConfig odd = sharded;
  odd.moe_intermediate = 1538;
  CHECK_THROWS_WITH_AS(TpExperts{odd}, "tp 4 does not divide moe_intermediate 1538", ConfigError);
  CHECK_THROWS_WITH_AS(TpExperts(deploy(qwen3_235b_a22b, {.tp = 4, .ep = 8})),
                       "TP-sharded experts run ep 1 (one attention group): ep 8 exceeds max_ep 1", ConfigError);
}

TEST_CASE("the MoE frame refuses the KV-parallel degree of the one Parallelism every frame takes") {
  CHECK_THROWS_WITH_AS(Qwen3Moe<Qwen3MoeConfig>(deploy(qwen3_30b_a3b, {.tp = 1, .ep = 4, .hp = 2})),
                       "the MoE frame splits no sequence's KV (hp 1): hp 2 exceeds max_hp 1", ConfigError);
}

TEST_CASE("Qwen3-MoE's own keys are required (no silent fallback to the dense width)") {
  CHECK_THROWS_WITH_AS(Qwen3MoeConfig::from_hf(parse_hf_config(R"({"model_type": "qwen3_moe", "hidden_size": 2048,
      "num_attention_heads": 32, "head_dim": 128, "intermediate_size": 6144})", "q.json"), {.tp = 4, .ep = 8}),
                       "q.json: missing key 'moe_intermediate_size'", DataError);
}
