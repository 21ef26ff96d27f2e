// GLM-5 (archs/glm5.hpp): the dense-then-MoE MLA frame with DeepSeek sparse attention: a
// lightning indexer scores every cached token for every query and MLA attends over the
// index_topk it keeps (ops/attention/dsa.hpp); the indexer's key cache joins the KV.
#include <doctest/doctest.h>

#include <array>
#include <string>
#include <vector>

#include "costdsl/costdsl.hpp"
#include "costdsl/archs/glm5.hpp"
#include "costdsl/data_dir.hpp"
#include "costdsl/load_hf_config.hpp"
#include "costdsl/worklet_def.hpp"

#include <nlohmann/json.hpp>

#include "common.hpp"
#include "feed_law.hpp"
#include "tp_experts_law.hpp"

using namespace costdsl;
using namespace costdsl::archs;

namespace {

// GLM-5's config.json, the keys the family reads.
const std::string glm5_keys = R"("model_type": "glm_moe_dsa", "hidden_size": 6144, "num_attention_heads": 64,
    "q_lora_rank": 2048, "kv_lora_rank": 512, "qk_nope_head_dim": 192, "qk_rope_head_dim": 64, "v_head_dim": 256,
    "intermediate_size": 12288, "moe_intermediate_size": 2048, "n_shared_experts": 1, "n_routed_experts": 256,
    "num_experts_per_tok": 8, "vocab_size": 154880, "num_hidden_layers": 78, "first_k_dense_replace": 3,
    "moe_layer_freq": 1, "index_n_heads": 32, "index_head_dim": 128, "index_topk": 2048)";

// The preset, its reflected fields and its indexer (not a reflected field).
bool glm5_same(const Glm5Config& a, const Glm5Config& b) { return arch_test::same_fields(a, b) && a.indexer == b.indexer; }

// glm5_keys with `key` set to `value` (empty: removed).
Glm5Config glm5_with(const std::string& key, const std::string& value) {
  std::string keys = glm5_keys;
  const std::size_t at = keys.find("\"" + key + "\": ");
  std::size_t end = keys.find_first_of(",}", keys.find(':', at));
  if (value.empty()) {
    keys.erase(at > 2 && keys[at - 2] == ',' ? at - 2 : at, end - (at > 2 && keys[at - 2] == ',' ? at - 2 : at));
  } else {
    keys.replace(at, end - at, "\"" + key + "\": " + value);
  }
  return Glm5Config::from_hf(parse_hf_config("{" + keys + "}", "g.json"), {.tp = 1, .ep = 1});
}

using Glm5Tp8 = Glm5<Fixed<deploy(glm5, {.tp = 8, .ep = 8})>>;
using Glm5Tree = decltype(Glm5Tp8().build(std::declval<const Timing&>()));

// One iteration's row of a tp 8 / ep 8 GLM-5.
std::array<Metrics, n_slots<Glm5Tree>> glm5_row(const std::vector<ops::PrefillChunk>& prefill,
                                            const std::vector<std::uint32_t>& decode) {
  static const Glm5Tp8 s;
  static const Glm5Tree tree = s.build(arch_test::roofline_h200());
  DpDeal deal;
  std::array<Metrics, n_slots<Glm5Tree>> row{};
  evaluate(tree, s.inputs(deal.deal({prefill, decode}, s.resolved().dp, {})), row);
  return row;
}
Metrics glm5_slot(const std::array<Metrics, n_slots<Glm5Tree>>& row, std::string_view leaf) {
  return row[arch_test::slot_at<Glm5Tree>("model.moe_layer.dp.attn." + std::string(leaf))];
}

}  // namespace

// The layer contracts (design §6): the sparse attention block a worklet in both forms, the family a DP arch.
static_assert(WorkletDef<worklets::MlaBlockTp<DsaForm>, DsaForm>);
static_assert(WorkletDef<worklets::MlaBlockTp<Fixed<DsaForm::of(deploy(glm5, {.tp = 8, .ep = 8}))>>,
                         Fixed<DsaForm::of(deploy(glm5, {.tp = 8, .ep = 8}))>>);
static_assert(DpArch<Glm5Tp8> && DpArch<Glm5<Glm5Config>>);
static_assert(DpArch<Glm5<Glm5Config, AttnGrain::tp, ExpertGrain::tp>>);
// The static form checks the indexer's shape at compile time.
static_assert(worklets::MlaBlockTp<Fixed<DsaForm::of(deploy(glm5, {.tp = 8, .ep = 8}))>>::resolve_config(Fixed<DsaForm::of(deploy(glm5, {.tp = 8, .ep = 8}))>{}).index_topk.value() ==
              2048);

TEST_CASE("GLM-5 config.json: the preset, the shipped file") {
  CHECK(glm5_same(Glm5Config::from_hf(parse_hf_config("{" + glm5_keys + "}", "g.json"), {.tp = 1, .ep = 1}), deploy(glm5)));
  const Glm5Config shipped = Glm5Config::from_hf(load_hf_config(default_data_dir() / "models" / "glm5.json"), {.tp = 1, .ep = 1});
  CHECK(glm5_same(shipped, deploy(glm5)));
}

TEST_CASE("GLM-5: bad config.json files name the field, its value and the rule") {
  CHECK_THROWS_WITH_AS(glm5_with("index_topk", "0"),
                       "g.json: index_topk 0 must be at least 1: the lightning indexer has index_topk cached tokens "
                       "selected for every query",
                       DataError);
  CHECK_THROWS_WITH_AS(glm5_with("index_topk", "-2048"),
                       "g.json: index_topk -2048 must be at least 1: the lightning indexer has index_topk cached "
                       "tokens selected for every query",
                       DataError);
  CHECK_THROWS_WITH_AS(glm5_with("index_n_heads", ""),
                       "g.json: index_n_heads missing is required: the glm5 family's lightning indexer has "
                       "index_n_heads heads",
                       DataError);
  CHECK_THROWS_WITH_AS(glm5_with("index_head_dim", ""),
                       "g.json: index_head_dim missing is required: the glm5 family's lightning indexer has keys of "
                       "index_head_dim elements",
                       DataError);
  CHECK_THROWS_WITH_AS(glm5_with("index_head_dim", "32"),
                       "g.json: index_head_dim 32 is below qk_rope_head_dim 64: the indexer's q and k carry the "
                       "rotary part",
                       DataError);
  // The MLA frame's own rule, named for the arch that reads the file.
  CHECK_THROWS_WITH_AS(glm5_with("moe_layer_freq", "2"),
                       "g.json: moe_layer_freq 2 is not 1; GLM-5 models every layer after first_k_dense_replace as MoE",
                       DataError);
  CHECK_THROWS_WITH_AS(glm5_with("index_topk", "2048, \"index_topk_freq\": 4"),
                       "g.json: index_topk_freq 4 is not 1: the glm5 family models an indexer selecting in every layer",
                       DataError);
  // Heads tp does not divide; a run-time index_topk 0; KV-parallel decode (not modelled).
  CHECK_THROWS_WITH_AS(Glm5<Glm5Config>(deploy(glm5, {.tp = 3, .ep = 3})), "tp 3 does not divide num_heads 64", ConfigError);
  Glm5Config none = deploy(glm5, {.tp = 8, .ep = 8});
  none.indexer.index_topk = 0;
  CHECK_THROWS_WITH_AS(Glm5<Glm5Config>{none}, "index_topk is 0; it must be at least 1", ConfigError);
  CHECK_THROWS_WITH_AS((Glm5<Glm5Config, AttnGrain::hptp>(deploy(glm5, {.tp = 1, .ep = 8, .hp = 8}))),
                       "GLM-5: hp 8: KV-parallel (Helix) decode of DeepSeek sparse attention is not modelled; run it "
                       "at hp 1",
                       ConfigError);
}

TEST_CASE("GLM-5 at tp 8 / ep 8: MLA with the indexer in every layer, the sparse kernel at its padded head tile") {
  const Timing& t = arch_test::roofline_h200();
  const Glm5Tp8 s;
  const Glm5<Glm5Config> r(deploy(glm5, {.tp = 8, .ep = 8}));
  CHECK(s.resolved().dp == 1);
  const nlohmann::json j = to_json(make_manifest(s.build(t)));
  const auto slot = [&](std::string_view path) { return j["slots"][arch_test::slot_at<Glm5Tree>(path)]; };
  for (std::string_view layer : {"dense_layer", "moe_layer"}) {
    const std::string a = "model." + std::string(layer) + ".dp.attn.";
    INFO(layer);
    // The indexer is whole on every rank: 32 heads of 128 from the 2048-wide q latent, one
    // 128-wide key and 32 weights from the hidden state; its key cached as 128 fp8 + a 4-byte scale.
    CHECK(slot(a + "index_q_proj")["config"]["n"]["value"] == 32 * 128);
    CHECK(slot(a + "index_q_proj")["config"]["k"]["value"] == 2048);
    CHECK(slot(a + "index_k_proj")["config"]["n"]["value"] == 128);
    CHECK(slot(a + "index_weights_proj")["config"]["n"]["value"] == 32);
    CHECK(slot(a + "index_k_append")["config"]["head_dim"]["value"] == 66);
    CHECK(slot(a + "index_k_append")["config"]["kv_dtype"] == "fp8");
    CHECK(slot(a + "index_logits_decode")["kind"] == "dsa_indexer_logits");
    CHECK(slot(a + "index_topk_decode")["kind"] == "dsa_topk");
    CHECK(slot(a + "index_topk_decode")["config"]["topk"]["value"] == 2048);
    // 8 heads a rank, padded to the sparse kernel's 64-head tile; MLA's dense prefill keeps 8.
    CHECK(slot(a + "sparse_decode")["kind"] == "dsa_sparse_mla");
    CHECK(slot(a + "sparse_decode")["config"]["num_heads"]["value"] == 64);
    CHECK(slot(a + "sparse_prefill")["kind"] == "dsa_sparse_mla");
    CHECK(slot(a + "prefill")["kind"] == "mla_prefill");
    CHECK(slot(a + "prefill")["config"]["num_heads"]["value"] == 8);
    CHECK(slot(a + "q_b_proj")["config"]["n"]["value"] == 8 * (192 + 64));
    CHECK(slot(a + "o_proj")["config"]["k"]["value"] == 8 * 256);
  }
  // Both forms, and the DP laws every DP arch keeps.
  const std::vector<ops::PrefillChunk> prefill{{0, 3000}, {4096, 1000}};
  const std::vector<std::uint32_t> decode(8, 9000);
  const auto totals = arch_test::check_feed_law(s, r, t, {prefill, decode}, ops::moe::Routing{0.8});
  CHECK(totals[0] == totals[1]);
  CHECK(totals[0].time_s > 0);
  CHECK(to_json(make_manifest(s.build(t))) == to_json(make_manifest(r.build(t))));
  arch_test::check_slot_families(make_manifest(r.build(t)));
}

TEST_CASE("GLM-5 decode: the sparse attention core is flat in the context, the indexer grows with it") {
  const auto near = glm5_row({}, std::vector<std::uint32_t>(32, 3000));
  const auto far = glm5_row({}, std::vector<std::uint32_t>(32, 60000));
  const auto farther = glm5_row({}, std::vector<std::uint32_t>(32, 120000));
  for (std::string_view leaf : {"sparse_decode", "q_absorb", "o_absorb", "index_q_proj", "index_k_append"}) {
    INFO(leaf);
    CHECK(glm5_slot(near, leaf).time_s > 0);
    CHECK(glm5_slot(near, leaf) == glm5_slot(far, leaf));
    CHECK(glm5_slot(far, leaf) == glm5_slot(farther, leaf));
  }
  for (std::string_view leaf : {"index_logits_decode", "index_topk_decode"}) {
    INFO(leaf);
    CHECK(glm5_slot(far, leaf).time_s > glm5_slot(near, leaf).time_s);
    CHECK(glm5_slot(farther, leaf).time_s > glm5_slot(far, leaf).time_s);
    CHECK(glm5_slot(farther, leaf).flops == doctest::Approx(2 * glm5_slot(far, leaf).flops).epsilon(1e-4));
  }
  // Contexts within index_topk select every key: the top-k has nothing to choose.
  const auto short_ctx = glm5_row({}, std::vector<std::uint32_t>(32, 2000));
  CHECK(glm5_slot(short_ctx, "index_topk_decode").flops == 0);
  CHECK(glm5_slot(short_ctx, "index_logits_decode").flops > 0);
  CHECK(glm5_slot(short_ctx, "sparse_decode") == glm5_slot(far, "sparse_decode"));
  // The sparse decode's work: 32 queries × 2048 slots × 64 launched heads (8 a rank padded
  // to Hopper's 64-head tile) × (576 + 512) × 2.
  CHECK(glm5_slot(far, "sparse_decode").flops == 2.0 * 64 * 32 * 2048 * (576 + 512));
  // A dense MLA decode is gone: no mla_decode slot in the layer.
  for (std::size_t i = 0; i < n_slots<Glm5Tree>; ++i) CHECK(std::string_view(slot_paths<Glm5Tree>[i]).find(".attn.decode") == std::string_view::npos);
}

TEST_CASE("GLM-5 prefill: contexts within index_topk run dense MLA, a longer one sends the batch sparse") {
  const auto dense = glm5_row({{0, 1024}, {512, 1536}}, {});
  CHECK(glm5_slot(dense, "prefill").time_s > 0);
  CHECK(glm5_slot(dense, "kv_b_proj").time_s > 0);
  for (std::string_view leaf : {"sparse_prefill", "index_logits_prefill", "index_topk_prefill", "q_absorb"}) {
    INFO(leaf);
    CHECK(glm5_slot(dense, leaf) == Metrics{});
  }
  const auto sparse = glm5_row({{0, 1024}, {0, 4096}}, {});  // one chunk past 2048: both go sparse
  CHECK(glm5_slot(sparse, "prefill") == Metrics{});
  CHECK(glm5_slot(sparse, "kv_b_proj") == Metrics{});
  for (std::string_view leaf : {"sparse_prefill", "index_logits_prefill", "index_topk_prefill", "q_absorb"}) {
    INFO(leaf);
    CHECK(glm5_slot(sparse, leaf).time_s > 0);
  }
  // The chunks' exact work: 5120 queries × 2048 slots; causal keys 1024·1025/2 + 4096·4097/2.
  CHECK(glm5_slot(sparse, "sparse_prefill").flops == 2.0 * 64 * 5120 * 2048 * (576 + 512));
  CHECK(glm5_slot(sparse, "index_logits_prefill").flops ==
        (1024.0 * 1025 / 2 + 4096.0 * 4097 / 2) * 32 * (2 * 128 + 3));
  // The indexer's projections and key cache run for every token on either path.
  CHECK(glm5_slot(dense, "index_k_append").bytes == glm5_slot(glm5_row({{0, 2560}}, {}), "index_k_append").bytes);
}

TEST_CASE("GLM-5's KV bytes per token: the latent and the indexer key, every layer; weights") {
  const Glm5<Glm5Config> bf16(deploy(glm5, {.tp = 8, .ep = 8}));
  // 78 layers × ((512 + 64) bf16 latent + 128 fp8 indexer key + its fp32 scale).
  CHECK(bf16.kv_bytes_per_token() == 78.0 * (576 * 2 + 132));
  CHECK(bf16.kv_bytes_per_token_per_gpu() == bf16.kv_bytes_per_token());  // whole on every rank
  Glm5Config fp8 = deploy(glm5, {.tp = 8, .ep = 8});
  fp8.kv_dtype = Dtype::fp8;
  CHECK(Glm5<Glm5Config>(fp8).kv_bytes_per_token() == 78.0 * (576 + 132));
  // GLM-5 has 744B parameters without its MTP layer's (bf16 at tp 1).
  const double params = Glm5<Glm5Config>(deploy(glm5)).weight_bytes_per_gpu() / 2;
  CHECK(params > 740e9);
  CHECK(params < 750e9);
  // The indexer whole on every rank, in every layer: wq_b and wk with the other projections
  // (bf16 here), weights_proj and the k LayerNorm's weight and bias in the model's dtype.
  // GLM-5's shape read as DeepSeek-V3 (dense MLA, no indexer) is the difference.
  const DeepseekV3<DeepseekV3Config> dense(
      DeepseekV3Config::from_hf(parse_hf_config("{" + glm5_keys + "}", "g.json"), {.tp = 8, .ep = 8}));
  const double indexer = 78.0 * 2 * (2048.0 * 32 * 128 + 6144.0 * 128 + 6144.0 * 32 + 2 * 128);
  CHECK(bf16.weight_bytes_per_gpu() - dense.weight_bytes_per_gpu() == doctest::Approx(indexer));
  CHECK(bf16.kv_bytes_per_token() - dense.kv_bytes_per_token() == 78.0 * 132);
}

TEST_CASE("GLM-5 with TP experts (ep 1 over tp 8), as the silicon sample runs it") {
  constexpr Glm5Config sharded = deploy(glm5, {.tp = 8, .ep = 1});
  using TpExperts = Glm5<Glm5Config, AttnGrain::tp, ExpertGrain::tp>;
  arch_test::check_tp_experts<Glm5<Fixed<sharded>>, TpExperts, Glm5<Glm5Config>>(sharded, deploy(glm5), {"model.moe_layer.moe"});
}
