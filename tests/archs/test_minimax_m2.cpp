// MiniMax-M2 (archs/minimax_m2.hpp): the MoE frame with the per-layer q/k norm, whose TP
// all-reduce is its one structural difference from Qwen3-MoE.
#include <doctest/doctest.h>

#include <array>
#include <string>
#include <vector>

#include "costdsl/costdsl.hpp"
#include "costdsl/archs/minimax_m2.hpp"
#include "costdsl/archs/qwen3_moe.hpp"

#include "common.hpp"
#include "feed_law.hpp"

using namespace costdsl;
using namespace costdsl::archs;

namespace {

MiniMaxM2Config minimax_shipped(std::uint32_t tp, std::uint32_t ep) {
  return MiniMaxM2Config::from_hf(load_hf_config(default_data_dir() / "models" / "minimax_m2_5.json"), {.tp = tp, .ep = ep});
}

// MiniMax-M2.5's config.json, the keys the layer reads.
const std::string minimax_keys = R"("model_type": "minimax_m2", "hidden_size": 3072, "num_attention_heads": 48,
    "num_key_value_heads": 8, "head_dim": 128, "intermediate_size": 1536, "num_local_experts": 256,
    "num_experts_per_tok": 8, "vocab_size": 200064, "num_hidden_layers": 62, "rotary_dim": 64,
    "use_qk_norm": true, "qk_norm_type": "per_layer", "shared_intermediate_size": 0,
    "quantization_config": {"quant_method": "fp8", "weight_block_size": [128, 128]})";

}  // namespace

TEST_CASE("MiniMax-M2 config.json: experts as num_local_experts of intermediate_size; what is not modelled is named") {
  const MiniMaxM2Config m = MiniMaxM2Config::from_hf(parse_hf_config("{" + minimax_keys + "}", "m.json"), {.tp = 4, .ep = 8});
  CHECK(m.moe_intermediate == 1536);
  CHECK(m.num_experts == 256);
  CHECK(m.top_k == 8);
  CHECK(m.num_layers == 62);
  CHECK(m.expert_dtype == Dtype::fp8_block);
  CHECK(m.gemm_dtype == Dtype::fp8_block);
  const auto with = [](const std::string& extra) {
    return MiniMaxM2Config::from_hf(parse_hf_config("{" + minimax_keys + ", " + extra + "}", "m.json"), {.tp = 4, .ep = 8});
  };
  CHECK_THROWS_WITH_AS(with(R"("shared_intermediate_size": 512)"),
                       "m.json: shared_intermediate_size 512 is not 0; a shared expert is not modelled in the "
                       "minimax_m2 family",
                       DataError);
  CHECK_THROWS_WITH_AS(with(R"("use_qk_norm": false)"),
                       "m.json: use_qk_norm false is not true; the minimax_m2 family models its per-layer q/k norm",
                       DataError);
  CHECK_THROWS_WITH_AS(with(R"("qk_norm_type": "per_head")"),
                       "m.json: qk_norm_type 'per_head' is not 'per_layer'; the minimax_m2 family models the norm "
                       "over the whole projection",
                       DataError);
  // The shipped config.json is the preset.
  const MiniMaxM2Config shipped = minimax_shipped(1, 1);
  CHECK(arch_test::same_fields(shipped, deploy(minimax_m2_5)));
}

TEST_CASE("MiniMax-M2 at tp 4: one q/k norm over each token's whole projection slice, then a 2-fp32 all-reduce") {
  const Timing& t = arch_test::roofline_h200();
  using Tree = decltype(MiniMaxM2<Fixed<deploy(minimax_m2_5, {.tp = 4, .ep = 8})>>().build(t));
  using Local = decltype(MiniMaxM2<Fixed<deploy(minimax_m2_5, {.tp = 1, .ep = 8})>>().build(t));
  // Qwen3-MoE's slots plus the norm's all-reduce, only where tp > 1 (at tp 1 the attention all-reduce,
  // the embedding's all-reduce and the lm_head's all-gather go too).
  using Qwen = decltype(Qwen3Moe<Fixed<deploy(qwen3_235b_a22b, {.tp = 4, .ep = 8})>>().build(t));
  static_assert(n_slots<Tree> == n_slots<Qwen> + 1 && n_slots<Local> == n_slots<Qwen> - 3);
  // After the pre-attention slots (norms, rope: their order inside the block does not change its sum).
  CHECK(std::string(slot_paths<Tree>[arch_test::slot_at<Tree>("model.layer.dp.attn.rope") + 1]) ==
        "model.layer.dp.attn.qk_norm_allreduce");

  const MiniMaxM2<Fixed<deploy(minimax_m2_5, {.tp = 4, .ep = 8})>> s;
  const MiniMaxM2<MiniMaxM2Config> r(deploy(minimax_m2_5, {.tp = 4, .ep = 8}));
  const auto st = s.build(t);
  const nlohmann::json j = to_json(make_manifest(st));
  const auto& q_norm = j["slots"][arch_test::slot_at<Tree>("model.layer.dp.attn.q_norm")];
  CHECK(q_norm["config"]["hidden"]["value"] == 48 / 4 * 128);  // the rank's 12 heads at once
  const auto& k_norm = j["slots"][arch_test::slot_at<Tree>("model.layer.dp.attn.k_norm")];
  CHECK(k_norm["config"]["hidden"]["value"] == 8 / 4 * 128);
  CHECK(j["slots"][arch_test::slot_at<Tree>("model.layer.dp.attn.qk_norm_allreduce")]["config"]["num_gpus"]["value"] == 4);

  // 8 decodes and a 1000-token prefill on a 2-group deployment: each group's rows go through
  // one norm row each, and the all-reduce carries 8 bytes per row.
  const std::vector<ops::PrefillChunk> prefill{{0, 1000}};
  const std::vector<std::uint32_t> decode(8, 2048);
  DpDeal deal;
  std::array<Metrics, n_slots<Tree>> row{};
  evaluate(st, s.inputs(deal.deal({prefill, decode}, s.resolved().dp, {})), row);
  const double ar = row[arch_test::slot_at<Tree>("model.layer.dp.attn.qk_norm_allreduce")].time_s;
  const double tp_ar = row[arch_test::slot_at<Tree>("model.layer.dp.attn.tp_allreduce")].time_s;
  CHECK(ar > 0);
  CHECK(ar < tp_ar);  // 8 bytes a row against the hidden-wide partial sums

  // Both forms, and the DP laws every DP arch keeps.
  const auto totals = arch_test::check_feed_law(s, r, t, {prefill, decode}, ops::moe::Routing{1.2});
  CHECK(totals[0] == totals[1]);
  CHECK(to_json(make_manifest(st)) == to_json(make_manifest(r.build(t))));
  arch_test::check_slot_families(make_manifest(r.build(t)));
  arch_test::check_slot_families(
      make_manifest(MiniMaxM2<MiniMaxM2Config, worklets::ExpertGrain::tp>(deploy(minimax_m2_5, {.tp = 4, .ep = 1})).build(t)));
}

TEST_CASE("MiniMax-M2's weights and KV: the frame's, with the per-layer norms' weights") {
  const MiniMaxM2<MiniMaxM2Config> m(deploy(minimax_m2_5, {.tp = 4, .ep = 8}));
  // 62 layers × 8 KV heads × 128 × 2 (K and V) × 2 bytes (bf16 KV cache).
  CHECK(m.kv_bytes_per_token() == doctest::Approx(62.0 * 8 * 128 * 2 * 2));
  CHECK(m.kv_bytes_per_token_per_gpu() == doctest::Approx(62.0 * 8 * 128 * 2 * 2 / 4));
  // 229B parameters, most in fp8 experts (1 byte each), 32 of 256 experts a rank: ~28-29 GB.
  CHECK(m.weight_bytes_per_gpu() > 25e9);
  CHECK(m.weight_bytes_per_gpu() < 32e9);
}
