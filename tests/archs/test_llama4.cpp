// Llama-4 (archs/llama4.hpp): the MoE frame with a shared expert beside the routed ones and
// a (chunked, chunked, chunked, full) layer period, the frame's two options no other family
// takes.
#include <doctest/doctest.h>

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
                       "l.json: interleave_moe_layer_step 2 is not 1; the llama4 family models every layer as MoE "
                       "(Scout), not dense and MoE alternating",
                       DataError);
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
