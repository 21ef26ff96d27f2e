#include <doctest/doctest.h>

#include <array>
#include <map>
#include <string>
#include <vector>

#include "costdsl/costdsl.hpp"
#include "costdsl/archs/mixtral.hpp"

#include "../moe/batches.hpp"
#include "common.hpp"
#include "feed_law.hpp"

using namespace costdsl;
using namespace costdsl::archs;

using moe_test::Batches;
using moe_test::roofline_h200;

TEST_CASE("Mixtral: Qwen3-MoE's DP/EP layer without q/k norm; slots in build order") {
  using Tree = decltype(Mixtral<Fixed<deploy(mixtral_8x7b, {.tp = 2, .ep = 8})>>().build(roofline_h200()));
  // embed 2 + layer (attn 8 + router 2 + moe 5) + lm_head 3, for any batch and any dp.
  static_assert(n_slots<Tree> == 2 + 10 + 5 + 3);
  const std::vector<std::string> layer{
      "dp.attn.input_norm", "dp.attn.qkv_proj", "dp.attn.rope",     "dp.attn.kv_cache_append", "dp.attn.prefill",
      "dp.attn.decode",     "dp.attn.o_proj",   "dp.attn.tp_allreduce", "dp.router.post_norm",  "dp.router.router",
      "moe.dispatch",       "moe.experts",      "moe.combine",      "moe.moe_sum",    "moe.combine_allreduce"};
  CHECK(std::string(slot_paths<Tree>[0]) == "model.dp.embed.embedding");
  for (std::size_t i = 0; i < layer.size(); ++i)
    CHECK(std::string(slot_paths<Tree>[2 + i]) == "model.layer." + layer[i]);
}

TEST_CASE("Mixtral-8x7B at tp 2 / ep 8: static and run-time forms agree bitwise; top-2 expert GEMMs by hand") {
  const Timing& t = roofline_h200();
  const Mixtral<Fixed<deploy(mixtral_8x7b, {.tp = 2, .ep = 8})>> s;
  const Mixtral<MixtralConfig> r(deploy(mixtral_8x7b, {.tp = 2, .ep = 8}));
  CHECK(s.resolved().dp == 4);
  const auto st = s.build(t);
  const auto rt = r.build(t);
  std::array<Metrics, n_slots<decltype(st)>> srow{}, rrow{};
  const Batches b(4);  // a 4096-token prefill on group 0, 64 decodes dealt over 4 groups: 4160 tokens
  for (double skew : {0.0, 1.2}) {
    CHECK(evaluate(st, s.inputs(b.it({skew})), srow) == evaluate(rt, r.inputs(b.it({skew})), rrow));
    CHECK(srow == rrow);
  }
  CHECK(to_json(make_manifest(st)) == to_json(make_manifest(rt)));
  // One expert per rank, each a gated MLP of hidden 4096 and intermediate 14336.
  const nlohmann::json j = to_json(make_manifest(st));
  const auto& experts = j["slots"][13];
  REQUIRE(experts["name"] == "model.layer.moe.experts");
  CHECK(experts["config"]["hidden"]["value"] == 4096);
  CHECK(experts["config"]["moe_intermediate"]["value"] == 14336);
  CHECK(experts["config"]["num_experts"]["value"] == 1);
  CHECK(experts["config"]["num_experts"]["formula"] == "num_experts/ep");
  CHECK(experts["config"]["top_k"]["value"] == 2);
  // Uniform gating: 4160 tokens · top-2 = 8320 rows, 1040 on each of the 8 ranks. Work sums
  // over the ranks: per row gate/up 2·h·2i + down 2·i·h flops plus SiLU·mul 4·i.
  evaluate(st, s.inputs(b.it()), srow);
  const double h = 4096, i = 14336;
  CHECK(srow[13].flops == doctest::Approx(8320 * (6 * h * i + 4 * i)));
  const Kernel<kernels::FusedMoe> one_rank(t, {Dtype::bf16, 4096, 14336, 1, 2, Dtype::bf16, ExpertLoad::balanced});
  CHECK(srow[13].time_s == one_rank.eval({1040, 1}).time_s);  // balanced: every rank as slow as one
}

TEST_CASE("Mixtral: inputs(it, scratch) and BatchFeed equal inputs(it); warm, nothing allocates") {
  const Mixtral<Fixed<deploy(mixtral_8x7b, {.tp = 2, .ep = 8})>> s;
  const Mixtral<MixtralConfig> r(deploy(mixtral_8x22b, {.tp = 1, .ep = 8}));
  const std::vector<ops::PrefillChunk> prefill{{0, 4096}, {100, 300}};
  const std::vector<std::uint32_t> decode(61, 2048);
  const auto totals = arch_test::check_feed_law(s, r, roofline_h200(), {prefill, decode}, ops::moe::Routing{1.2});
  CHECK(totals[1].time_s > totals[0].time_s);  // 8x22B is the bigger model
}

TEST_CASE("Mixtral: ep must divide the 8 experts and be a multiple of tp (run-time errors name rule and values)") {
  CHECK_THROWS_WITH_AS(Mixtral<MixtralConfig>(deploy(mixtral_8x7b, {.tp = 1, .ep = 3})), "ep 3 does not divide num_experts 8",
                       ConfigError);
  CHECK_THROWS_WITH_AS(Mixtral<MixtralConfig>(deploy(mixtral_8x7b, {.tp = 1, .ep = 16})),
                       "ep 16 does not divide num_experts 8", ConfigError);
  CHECK_THROWS_WITH_AS(Mixtral<MixtralConfig>(deploy(mixtral_8x22b, {.tp = 4, .ep = 6})), "tp 4 does not divide ep 6",
                       ConfigError);
  // Attention above the 8 KV heads copies them (two ranks a head at tp 16), where they divide tp.
  CHECK_THROWS_WITH_AS(Mixtral<MixtralConfig>(deploy(mixtral_8x22b, {.tp = 12, .ep = 12})),
                       "num_kv_heads 8 does not divide tp 12", ConfigError);
  // (tp 16 takes TP experts: its 8 experts do not split 16 ways by ep.)
  const Mixtral<MixtralConfig, worklets::ExpertGrain::tp> wide(deploy(mixtral_8x22b, {.tp = 16, .ep = 1}));
  CHECK(wide.kv_bytes_per_token_per_gpu() == doctest::Approx(wide.kv_bytes_per_token() / 8));  // one head a rank
  const Mixtral<MixtralConfig> narrow(deploy(mixtral_8x22b, {.tp = 8, .ep = 8}));
  CHECK(narrow.kv_bytes_per_token_per_gpu() == doctest::Approx(narrow.kv_bytes_per_token() / 8));
  // Both forms replicate alike (the static one at compile time).
  CHECK(wide.weight_bytes_per_gpu() == Mixtral<Fixed<deploy(mixtral_8x22b, {.tp = 16, .ep = 1})>>().weight_bytes_per_gpu());
  CHECK(wide.kv_bytes_per_token_per_gpu() ==
        Mixtral<Fixed<deploy(mixtral_8x22b, {.tp = 16, .ep = 1})>>().kv_bytes_per_token_per_gpu());
  CHECK_THROWS_AS(Mixtral<MixtralConfig>(deploy(mixtral_8x7b, {.tp = 1, .ep = 0})), ConfigError);
  for (std::uint32_t ep : {1u, 2u, 4u, 8u}) CHECK_NOTHROW(Mixtral<MixtralConfig>(deploy(mixtral_8x7b, {.tp = 1, .ep = ep})));
}

TEST_CASE("Mixtral: shipped config.json files agree with the presets; a bad one names file and key") {
  auto load = [](const char* name, std::uint32_t tp, std::uint32_t ep) {
    return MixtralConfig::from_hf(load_hf_config(default_data_dir() / "models" / name), {.tp = tp, .ep = ep});
  };
  auto same = [](const MixtralConfig& a, const MixtralConfig& b) {
    return a.hidden == b.hidden && a.num_qo_heads == b.num_qo_heads && a.num_kv_heads == b.num_kv_heads &&
           a.head_dim == b.head_dim && a.moe_intermediate == b.moe_intermediate && a.num_experts == b.num_experts &&
           a.top_k == b.top_k && a.vocab == b.vocab && a.num_layers == b.num_layers && a.tp == b.tp &&
           a.ep == b.ep && a.dtype == b.dtype && a.kv_dtype == b.kv_dtype && a.gemm_dtype == b.gemm_dtype &&
           a.expert_dtype == b.expert_dtype;
  };
  CHECK(same(load("mixtral_8x7b.json", 1, 1), deploy(mixtral_8x7b)));
  CHECK(same(load("mixtral_8x22b.json", 2, 8), deploy(mixtral_8x22b, {.tp = 2, .ep = 8})));
  CHECK_THROWS_WITH_AS(MixtralConfig::from_hf(parse_hf_config(R"({"hidden_size": 4096, "num_attention_heads": 32,
      "intermediate_size": 14336})", "x.json"), {.tp = 1, .ep = 1}), "x.json: missing key 'num_local_experts'", DataError);
  CHECK_THROWS_WITH_AS(
      MixtralConfig::from_hf(parse_hf_config(R"({"hidden_size": 4000, "num_attention_heads": 48})", "x.json"), {.tp = 1, .ep = 1}),
      "x.json: num_attention_heads 48 does not divide hidden_size 4000 and there is no head_dim", DataError);
}

TEST_CASE("Mixtral: KV bytes per token and weights per GPU") {
  const Mixtral<MixtralConfig> a7(deploy(mixtral_8x7b));
  CHECK(a7.kv_bytes_per_token() == 2.0 * 8 * 128 * 2 * 32);
  // Mixtral-8x7B has 46.7 B parameters, 8x22B 140.6 B; at ep 8 each GPU holds one expert per layer.
  CHECK(a7.weight_bytes_per_gpu() / 2 == doctest::Approx(46.7e9).epsilon(0.01));
  CHECK(Mixtral<MixtralConfig>(deploy(mixtral_8x22b)).weight_bytes_per_gpu() / 2 == doctest::Approx(140.6e9).epsilon(0.01));
  const Mixtral<MixtralConfig> a7ep8(deploy(mixtral_8x7b, {.tp = 1, .ep = 8}));
  const double expert = 3.0 * 4096 * 14336 * 2;  // bytes of one expert in one layer
  CHECK(a7.weight_bytes_per_gpu() - a7ep8.weight_bytes_per_gpu() == doctest::Approx(32 * 7 * expert));
}

TEST_CASE("Mixtral with TP-sharded experts (ep 1 over tp 8): one attention group, experts split by width") {
  using Static = Mixtral<Fixed<deploy(mixtral_8x7b, {.tp = 8, .ep = 1})>>;  // ep 1 over tp 8 picks the tp grain
  using Runtime = Mixtral<MixtralConfig, worklets::ExpertGrain::tp>;
  const Static s;
  const Runtime r(deploy(mixtral_8x7b, {.tp = 8, .ep = 1}));
  const auto st = s.build(roofline_h200());
  const auto rt = r.build(roofline_h200());
  CHECK(s.resolved().dp == 1);
  const Manifest m = make_manifest(st);
  std::map<std::string, const SlotDescription*> by_name;
  for (const SlotDescription& d : m.slots) by_name[d.name] = &d;
  REQUIRE(by_name.count("model.layer.moe.experts") == 1);
  REQUIRE(by_name.count("model.layer.moe.tp_allreduce") == 1);
  CHECK(by_name.count("model.layer.moe.dispatch") == 0);  // no all-to-all: rows stay on their rank
  const nlohmann::json j = to_json(m);
  for (const auto& slot : j["slots"])
    if (slot["name"] == "model.layer.moe.experts") {
      CHECK(slot["config"]["moe_intermediate"]["value"] == 14336 / 8);
      CHECK(slot["config"]["num_experts"]["value"] == 8);
    }
  const moe_test::Batches one_group(1);
  CHECK(evaluate(st, s.inputs(one_group.it())) == evaluate(rt, r.inputs(one_group.it())));
  CHECK(evaluate(st, s.inputs(one_group.it({1.2}))) == evaluate(rt, r.inputs(one_group.it({1.2}))));
  // On one GPU the two grains run the same experts launch.
  const Mixtral<MixtralConfig> ep1(deploy(mixtral_8x7b));
  const Mixtral<MixtralConfig, worklets::ExpertGrain::tp> tp1(deploy(mixtral_8x7b));
  CHECK(evaluate(ep1.build(roofline_h200()), ep1.inputs(one_group.it())) ==
        evaluate(tp1.build(roofline_h200()), tp1.inputs(one_group.it())));
  // Expert weights per GPU: 1/8 of every expert, as EP 8 holds one whole expert.
  CHECK(s.kv_bytes_per_token_per_gpu() == s.kv_bytes_per_token() / 8);
  CHECK_THROWS_WITH_AS(Runtime(deploy(mixtral_8x7b, {.tp = 8, .ep = 2})),
                       "TP-sharded experts run ep 1 (one attention group): ep 2 exceeds max_ep 1", ConfigError);
}
