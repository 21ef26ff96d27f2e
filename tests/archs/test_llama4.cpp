// Llama-4 (archs/llama4.hpp): the MoE frame with a shared expert beside the routed ones and
// a (chunked, chunked, chunked, full) layer period, the frame's two options no other family
// takes; Maverick adds the third, dense layers between the MoE ones.
#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <string>
#include <type_traits>
#include <vector>

#include "costdsl/costdsl.hpp"
#include "costdsl/archs/llama4.hpp"

#include "common.hpp"
#include "feed_law.hpp"

using namespace costdsl;
using namespace costdsl::archs;

namespace {

// Llama-4-Scout's text_config, the keys the layer reads.
const std::string llama4_keys = R"("model_type": "llama4_text", "hidden_size": 5120, "num_attention_heads": 40,
    "num_key_value_heads": 8, "head_dim": 128, "intermediate_size": 8192, "num_local_experts": 16,
    "num_experts_per_tok": 1, "vocab_size": 202048, "num_hidden_layers": 48, "attention_chunk_size": 8192,
    "interleave_moe_layer_step": 1)";

}  // namespace

TEST_CASE("Llama-4 config.json: shared expert as wide as the routed ones, the chunk, and what is not modelled") {
  const Llama4Config c = Llama4Config::from_hf(parse_hf_config("{" + llama4_keys + "}", "l.json"), {.tp = 2, .ep = 4});
  CHECK(c.shared_intermediate == 8192);
  CHECK(c.moe_intermediate == 8192);
  CHECK(c.attention_chunk == 8192);
  CHECK(c.top_k == 1);
  const auto with = [](const std::string& extra) {
    return Llama4Config::from_hf(parse_hf_config("{" + llama4_keys + ", " + extra + "}", "l.json"), {.tp = 1, .ep = 1});
  };
  CHECK_THROWS_WITH_AS(with(R"("interleave_moe_layer_step": 2)"),
                       "l.json: interleave_moe_layer_step 2 is not 1 (llama4); the llama4 families read 1 (llama4: "
                       "every layer MoE, Scout) and 2 (llama4_maverick: dense and MoE layers alternating, Maverick)",
                       DataError);
  CHECK_THROWS_WITH_AS(with(R"("use_qk_norm": false)"),
                       "l.json: use_qk_norm false is not true; the llama4 family models a q/k L2 norm", DataError);
  CHECK_THROWS_WITH_AS(with(R"("no_rope_layers": [1, 1, 0, 1])"),
                       doctest::Contains("RoPE off (0) on every fourth layer only"), DataError);
  // The multimodal wrapper's text_config is the language model (Scout's config.json nests it so).
  const Llama4Config scout = Llama4Config::from_hf(parse_hf_config(R"({"architectures": ["Llama4ForConditionalGeneration"], "model_type": "llama4",
                          "vision_config": {"hidden_size": 1408}, "text_config": {)" + llama4_keys + "}}",
                      "scout.json"), {.tp = 1, .ep = 1});
  // The shipped config.json is the preset.
  const Llama4Config shipped = Llama4Config::from_hf(load_hf_config(default_data_dir() / "models" / "llama4_scout.json"), {.tp = 1, .ep = 1});
  CHECK(arch_test::same_fields(shipped, deploy(llama4_scout)));
  CHECK(arch_test::same_fields(scout, deploy(llama4_scout)));
}

TEST_CASE("Llama-4: a quad of 3 chunked layers (one scaled subtree) and 1 global, a shared expert beside the routed") {
  const Timing& t = arch_test::roofline_h200();
  using Tree = decltype(Llama4<Fixed<deploy(llama4_scout, {.tp = 2, .ep = 8})>>().build(t));
  const Llama4<Fixed<deploy(llama4_scout, {.tp = 2, .ep = 8})>> s;
  const Llama4<Llama4Config> r(deploy(llama4_scout, {.tp = 2, .ep = 8}));
  const auto st = s.build(t);
  const Manifest m = make_manifest(st);
  const nlohmann::json j = to_json(m);
  // Both spans' attention, each run once; the shared expert's GEMMs beside the routed experts.
  const std::size_t chunked_attn = arch_test::slot_at<Tree>("model.layer.chunked.dp.attn.prefill");
  const std::size_t full_attn = arch_test::slot_at<Tree>("model.layer.full.dp.attn.prefill");
  CHECK(j["slots"][chunked_attn]["kind"] == "attn_prefill");
  CHECK(j["slots"][full_attn]["kind"] == "attn_prefill");
  CHECK(j["slots"][arch_test::slot_at<Tree>("model.layer.full.shared_expert.up_gate_proj")]["config"]["n"]["value"] ==
        2 * 8192);
  bool scaled_by_3 = false;
  for (const FlatNode& n : m.tree.nodes()) scaled_by_3 |= n.kind == NodeKind::scale && n.param == 3;
  CHECK(scaled_by_3);

  // A prefill of 12,000 tokens on one group and 8 decodes at KV 9000 on the other: the
  // chunked layers' decodes read their chunk so far (9000 - 8192 = 808 tokens), the global
  // one all 9000; the chunked prefill attends within a window of a chunk.
  const std::vector<ops::PrefillChunk> prefill{{0, 12000}};
  const std::vector<std::uint32_t> decode(8, 9000);
  DpDeal deal;
  std::array<Metrics, n_slots<Tree>> row{};
  evaluate(st, s.inputs(deal.deal({prefill, decode}, s.resolved().dp, {})), row);
  const double chunked_decode = row[arch_test::slot_at<Tree>("model.layer.chunked.dp.attn.decode")].time_s;
  const double full_decode = row[arch_test::slot_at<Tree>("model.layer.full.dp.attn.decode")].time_s;
  CHECK(chunked_decode > 0);
  CHECK(chunked_decode < full_decode);
  // 8192²/2 + 3808·8192 query-key pairs against 12000²/2.
  CHECK(row[chunked_attn].flops / row[full_attn].flops ==
        doctest::Approx((8192.0 * 8192 / 2 + 3808.0 * 8192) / (12000.0 * 12000 / 2)).epsilon(0.01));
  CHECK(row[arch_test::slot_at<Tree>("model.layer.full.shared_expert.down_proj")].time_s > 0);

  // Both forms, and the DP laws every DP arch keeps.
  const auto totals = arch_test::check_feed_law(s, r, t, {prefill, decode}, ops::moe::Routing{0.8});
  CHECK(totals[0] == totals[1]);
  CHECK(to_json(make_manifest(st)) == to_json(make_manifest(r.build(t))));
  arch_test::check_slot_families(make_manifest(r.build(t)));
  arch_test::check_slot_families(
      make_manifest(Llama4<Llama4Config, worklets::ExpertGrain::tp>(deploy(llama4_scout, {.tp = 4, .ep = 1})).build(t)));
}

TEST_CASE("Llama-4's weights and KV: the global layers' KV, the shared expert whole on every rank") {
  const Llama4<Llama4Config> m(deploy(llama4_scout, {.tp = 2, .ep = 8}));
  // Only the 12 global layers keep every token's KV: 12 × 8 KV heads × 128 × 2 (K and V) × 2 bytes.
  CHECK(m.kv_bytes_per_token() == doctest::Approx(12.0 * 8 * 128 * 2 * 2));
  // 109B parameters in bf16: 2 of 16 experts a rank (3 × 5120 × 8192 each), the shared expert
  // and attention (TP 2) on every rank, plus the embeddings: ~ 38 GB.
  CHECK(m.weight_bytes_per_gpu() > 30e9);
  CHECK(m.weight_bytes_per_gpu() < 45e9);
  // TP experts split the shared expert tp ways too; its width must divide.
  Llama4Config odd = deploy(llama4_scout, {.tp = 3, .ep = 1});
  odd.num_qo_heads = 39;
  odd.num_kv_heads = 3;
  CHECK_THROWS_AS((Llama4<Llama4Config, worklets::ExpertGrain::tp>(odd)), ConfigError);
  // A period that does not divide the layers, and a chunk of 0, are named.
  Llama4Config bad = deploy(llama4_scout, {.tp = 1, .ep = 1});
  bad.num_layers = 46;
  CHECK_THROWS_WITH_AS(Llama4<Llama4Config>{bad},
                       "num_layers 46 is not a multiple of 4: Llama4 repeats 3 chunked-attention layers then 1 global "
                       "one, so it must be a multiple of 4",
                       ConfigError);
  bad = deploy(llama4_scout, {.tp = 1, .ep = 1});
  bad.attention_chunk = 0;
  CHECK_THROWS_AS(Llama4<Llama4Config>{bad}, ConfigError);
}

namespace {

// Llama-4-Maverick's text_config, the keys its layers read: 128 experts, a dense MLP of
// intermediate_size_mlp on every other layer, no q/k norm.
const std::string maverick_keys = R"("model_type": "llama4_text", "hidden_size": 5120, "num_attention_heads": 40,
    "num_key_value_heads": 8, "head_dim": 128, "intermediate_size": 8192, "intermediate_size_mlp": 16384,
    "num_local_experts": 128, "num_experts_per_tok": 1, "vocab_size": 202048, "num_hidden_layers": 48,
    "attention_chunk_size": 8192, "interleave_moe_layer_step": 2, "use_qk_norm": false)";

}  // namespace

TEST_CASE("Llama-4 Maverick config.json: the dense layers' width, the step and the norm it models") {
  const auto read = [](const std::string& extra) {
    return Llama4MaverickConfig::from_hf(parse_hf_config("{" + maverick_keys + extra + "}", "m.json"), {.tp = 1, .ep = 8});
  };
  const Llama4MaverickConfig c = read("");
  CHECK(c.intermediate == 16384);
  CHECK(c.moe_intermediate == 8192);
  CHECK(c.shared_intermediate == 8192);
  CHECK(c.num_experts == 128);
  CHECK(Llama4MaverickLayer::reads(parse_hf_config("{" + maverick_keys + "}", "m.json")));
  CHECK(!Llama4Layer::reads(parse_hf_config("{" + maverick_keys + "}", "m.json")));
  CHECK_THROWS_WITH_AS(read(R"(, "interleave_moe_layer_step": 1)"),
                       doctest::Contains("m.json: interleave_moe_layer_step 1 is not 2 (llama4_maverick)"), DataError);
  CHECK_THROWS_WITH_AS(read(R"(, "use_qk_norm": true)"),
                       "m.json: use_qk_norm true is not false; the llama4_maverick family models no q/k L2 norm",
                       DataError);
  // Scout's reader names Maverick's step; a dense width the config does not give is named.
  CHECK_THROWS_WITH_AS(Llama4Config::from_hf(parse_hf_config("{" + maverick_keys + "}", "m.json"), {}),
                       doctest::Contains("interleave_moe_layer_step 2 is not 1 (llama4)"), DataError);
  CHECK_THROWS_AS(Llama4MaverickConfig::from_hf(
                      parse_hf_config(R"({"model_type": "llama4_text", "hidden_size": 5120, "num_attention_heads": 40,
                          "head_dim": 128, "intermediate_size": 8192, "num_local_experts": 128,
                          "num_experts_per_tok": 1, "vocab_size": 202048, "num_hidden_layers": 48,
                          "attention_chunk_size": 8192, "interleave_moe_layer_step": 2})",
                                      "m.json"),
                      {}),
                  DataError);
  const Llama4MaverickConfig shipped = Llama4MaverickConfig::from_hf(
      load_hf_config(default_data_dir() / "models" / "llama4_maverick.json"), {.tp = 1, .ep = 1});
  CHECK(arch_test::same_fields(shipped, deploy(llama4_maverick)));
}

TEST_CASE("Llama-4 Maverick: dense and MoE layers as kinds of the quad, each a scaled subtree") {
  const Timing& t = arch_test::roofline_h200();
  constexpr auto tp2_ep8 = deploy(llama4_maverick, {.tp = 2, .ep = 8});
  using Tree = decltype(Llama4<Fixed<tp2_ep8>>().build(t));
  const Llama4<Fixed<tp2_ep8>> s;
  const Llama4<Llama4MaverickConfig> r(tp2_ep8);
  const auto st = s.build(t);
  const Manifest m = make_manifest(st);
  const nlohmann::json j = to_json(m);
  // Layers 0 and 2 (chunked, dense MLP), 1 (chunked, MoE), 3 (full, MoE): three kinds.
  const std::size_t dense_up = arch_test::slot_at<Tree>("model.layer.chunked_dense.dp.mlp.up_gate_proj");
  CHECK(j["slots"][dense_up]["config"]["n"]["value"] == 2 * 16384 / 2);
  CHECK(j["slots"][arch_test::slot_at<Tree>("model.layer.chunked.shared_expert.up_gate_proj")]["config"]["n"]["value"] ==
        2 * 8192);
  CHECK(j["slots"][arch_test::slot_at<Tree>("model.layer.full.dp.attn.prefill")]["kind"] == "attn_prefill");
  std::vector<std::uint64_t> scales;
  for (const FlatNode& n : m.tree.nodes())
    if (n.kind == NodeKind::scale) scales.push_back(n.param);
  CHECK(std::count(scales.begin(), scales.end(), 2) == 1);   // the two dense chunked layers of a quad
  CHECK(std::count(scales.begin(), scales.end(), 12) == 1);  // 48 layers: 12 quads

  // One group's 4096-token prefill and 16 decodes over the 4 groups: a dense layer's MLP
  // runs each group's rows (all 4112 of them over the groups) through its tp-th of the
  // width; the dense layers hold no router.
  const std::vector<ops::PrefillChunk> prefill{{0, 4096}};
  const std::vector<std::uint32_t> decode(16, 3000);
  DpDeal deal;
  std::array<Metrics, n_slots<Tree>> row{};
  evaluate(st, s.inputs(deal.deal({prefill, decode}, s.resolved().dp, {})), row);
  CHECK(row[dense_up].flops == doctest::Approx(2.0 * 4112 * 5120 * (2 * 16384 / 2)));
  for (const nlohmann::json& slot : j["slots"])
    CHECK(slot["name"].get<std::string>().find("chunked_dense.dp.router") == std::string::npos);

  // Both forms, the DP laws, and the TP-expert grain (ep 1) with its dense MLP split tp ways.
  const auto totals = arch_test::check_feed_law(s, r, t, {prefill, decode}, ops::moe::Routing{0.8});
  CHECK(totals[0] == totals[1]);
  CHECK(to_json(make_manifest(st)) == to_json(make_manifest(r.build(t))));
  arch_test::check_slot_families(make_manifest(r.build(t)));
  const Llama4<Llama4MaverickConfig, worklets::ExpertGrain::tp> tp8(deploy(llama4_maverick, {.tp = 8, .ep = 1}));
  const nlohmann::json jt = to_json(make_manifest(tp8.build(t)));
  bool split = false;
  for (const nlohmann::json& slot : jt["slots"])
    split |= slot["name"] == "model.layer.chunked_dense.dp.mlp.up_gate_proj" && slot["config"]["n"]["value"] == 2 * 16384 / 8;
  CHECK(split);
}

TEST_CASE("Llama-4 Maverick's weights: 400B parameters, half the layers' experts") {
  const Llama4<Llama4MaverickConfig> m(deploy(llama4_maverick, {.tp = 1, .ep = 8}));
  const double h = 5120, moe_layers = 24, dense_layers = 24;
  const double attn = h * (40 + 2 * 8) * 128 + 40 * 128 * h;
  const double expected = 2 * (moe_layers * (128.0 / 8 * 3 * h * 8192 + 3 * h * 8192 + h * 128) +
                               dense_layers * 3 * h * 16384 + 48 * (attn + 2 * h) + 2 * 202048 * h + h);
  CHECK(m.weight_bytes_per_gpu() == doctest::Approx(expected));
  // The whole model on one GPU: ~400B parameters.
  const Llama4<Llama4MaverickConfig> one(deploy(llama4_maverick, {.tp = 1, .ep = 1}));
  CHECK(one.weight_bytes_per_gpu() / 2 == doctest::Approx(400e9).epsilon(0.01));
  // KV: the 12 global layers, as Scout.
  CHECK(m.kv_bytes_per_token() == doctest::Approx(12.0 * 8 * 128 * 2 * 2));
  // A dense width that does not divide tp is named.
  Llama4MaverickConfig odd = deploy(llama4_maverick, {.tp = 8, .ep = 8});
  odd.intermediate = 16380;
  CHECK_THROWS_AS(Llama4<Llama4MaverickConfig>{odd}, ConfigError);
  odd.intermediate = 0;
  CHECK_THROWS_AS(Llama4<Llama4MaverickConfig>{odd}, ConfigError);
}

TEST_CASE("Llama-4: fp8 producers reach the shared expert's projections, from the MoE block's norm and its SiLU·mul") {
  const Timing& t = arch_test::roofline_h200();
  Quantization q{Dtype::fp8, Dtype::fp8, Dtype::fp8};
  q.fp8_from_norm = q.fp8_from_activation = true;
  const Llama4<Llama4Config> r(deploy(llama4_scout, {.tp = 2, .ep = 8}, q));
  const nlohmann::json j = to_json(make_manifest(r.build(t)));
  int fp8_input = 0;
  for (const auto& s : j["slots"]) {
    const std::string name = s["name"];
    if (name.find("shared_expert.") != std::string::npos && s["kind"] == "gemm") {
      CHECK(s["config"]["input_dtype"] == "fp8");
      ++fp8_input;
    }
  }
  CHECK(fp8_input == 4);  // up/gate and down, in the chunked and the global span
}
