// Qwen3.5 (archs/qwen3_5.hpp): the MoE frame with Gated DeltaNet linear layers (a recurrent
// state per request instead of a KV cache) on three layers of every four, gated full
// attention on the fourth, a shared expert beside the routed ones.
#include <doctest/doctest.h>

#include <array>
#include <cmath>
#include <string>
#include <vector>

#include "costdsl/costdsl.hpp"
#include "costdsl/archs/qwen3_5.hpp"
#include "costdsl/serve/kv_budget.hpp"
#include "costdsl/serve/simulate.hpp"
#include "costdsl/serve/worker.hpp"
#include "costdsl/serve/worker_option.hpp"
#include "costdsl/worklet_def.hpp"
#include "costdsl/worklets/gdn_block_tp.hpp"

#include "common.hpp"
#include "feed_law.hpp"

using namespace costdsl;
using namespace costdsl::archs;

namespace {

// Qwen3.5-397B-A17B's text_config, the keys the layer reads (layer_types added per case).
const std::string qwen3_5_keys = R"("model_type": "qwen3_5_moe_text", "hidden_size": 4096, "num_attention_heads": 32,
    "num_key_value_heads": 2, "head_dim": 256, "moe_intermediate_size": 1024, "num_experts": 512,
    "num_experts_per_tok": 10, "vocab_size": 248320, "num_hidden_layers": 60, "shared_expert_intermediate_size": 1024,
    "linear_num_key_heads": 16, "linear_key_head_dim": 128, "linear_num_value_heads": 64,
    "linear_value_head_dim": 128, "linear_conv_kernel_dim": 4, "full_attention_interval": 4,
    "attn_output_gate": true, "mlp_only_layers": [], "mamba_ssm_dtype": "float32", "mtp_num_hidden_layers": 1)";

// layer_types of n layers: entry i `full` where i % 4 == 3, else linear, one entry replaced.
std::string qwen3_5_layer_types(std::size_t n, std::size_t at = ~std::size_t{0}, const std::string& other = "") {
  std::string s = R"("layer_types": [)";
  for (std::size_t i = 0; i < n; ++i) {
    if (i > 0) s += ", ";
    s += i == at ? other : i % 4 == 3 ? R"("full_attention")" : R"("linear_attention")";
  }
  return s + "]";
}

// The preset, its reflected fields and its linear layers' layout (not a reflected field).
bool qwen3_5_same(const Qwen3_5Config& a, const Qwen3_5Config& b) {
  return arch_test::same_fields(a, b) && a.linear == b.linear;
}

Qwen3_5Config qwen3_5_read(const std::string& extra, std::uint32_t tp = 1, std::uint32_t ep = 1) {
  return Qwen3_5Config::from_hf(parse_hf_config("{" + qwen3_5_keys + (extra.empty() ? "" : ", " + extra) + "}", "q.json"), {.tp = tp, .ep = ep});
}

}  // namespace

// The layer contracts (design §6): the linear block a worklet in both forms, the family a DP arch.
static_assert(WorkletDef<worklets::GdnBlockTp<GdnForm>, GdnForm>);
static_assert(WorkletDef<worklets::GdnBlockTp<Fixed<GdnForm::of(deploy(qwen3_5_397b_a17b, {.tp = 4, .ep = 8}))>>,
                         Fixed<GdnForm::of(deploy(qwen3_5_397b_a17b, {.tp = 4, .ep = 8}))>>);
static_assert(DpArch<Qwen3_5<Fixed<deploy(qwen3_5_397b_a17b, {.tp = 4, .ep = 8})>>> && DpArch<Qwen3_5<Qwen3_5Config>>);
static_assert(DpArch<Qwen3_5<Qwen3_5Config, worklets::ExpertGrain::tp>>);

TEST_CASE("Qwen3.5 config.json: the preset, read flat or through the multimodal text_config; the shipped file") {
  CHECK(qwen3_5_same(qwen3_5_read(qwen3_5_layer_types(60)), deploy(qwen3_5_397b_a17b)));
  CHECK(qwen3_5_same(qwen3_5_read(""), deploy(qwen3_5_397b_a17b)));  // no layer_types: full_attention_interval says it
  const Qwen3_5Config wrapped = Qwen3_5Config::from_hf(parse_hf_config(R"({"architectures": ["Qwen3_5MoeForConditionalGeneration"], "model_type": "qwen3_5_moe",
                          "vision_config": {"hidden_size": 1152}, "text_config": {)" + qwen3_5_keys + ", " +
                          qwen3_5_layer_types(60) + "}}",
                      "wrapped.json"), {.tp = 1, .ep = 1});
  CHECK(qwen3_5_same(wrapped, deploy(qwen3_5_397b_a17b)));
  const Qwen3_5Config shipped =
      Qwen3_5Config::from_hf(load_hf_config(default_data_dir() / "models" / "qwen3_5_397b_a17b.json"), {.tp = 1, .ep = 1});
  CHECK(qwen3_5_same(shipped, deploy(qwen3_5_397b_a17b)));
}

TEST_CASE("Qwen3.5: bad config.json files name the field, its value and the rule") {
  // A full layer first: not the period; a list of the wrong length; a type not modelled.
  CHECK_THROWS_WITH_AS(qwen3_5_read(qwen3_5_layer_types(60, 0, R"("full_attention")")),
                       "q.json: layer_types entry 0 \"full_attention\" breaks the period: Qwen3.5 repeats 3 Gated "
                       "DeltaNet layers (linear_attention) then 1 full-attention layer (full_attention)",
                       DataError);
  CHECK_THROWS_WITH_AS(qwen3_5_read(qwen3_5_layer_types(56)),
                       "q.json: layer_types of 56 entries is not one entry a layer (num_hidden_layers 60)", DataError);
  CHECK_THROWS_WITH_AS(qwen3_5_read(qwen3_5_layer_types(60, 5, R"("sliding_attention")")),
                       "q.json: layer_types entry 5 \"sliding_attention\" is not a layer type the qwen3_5 family "
                       "models (linear_attention, full_attention)",
                       DataError);
  const auto with = [](const std::string& key, const std::string& value) {
    std::string keys = qwen3_5_keys;
    const std::size_t at = keys.find("\"" + key + "\": ");
    const std::size_t end = keys.find_first_of(",}", keys.find(':', at));
    keys.replace(at, end - at, "\"" + key + "\": " + value);
    return Qwen3_5Config::from_hf(parse_hf_config("{" + keys + "}", "q.json"), {.tp = 1, .ep = 1});
  };
  CHECK_THROWS_WITH_AS(with("full_attention_interval", "2"),
                       "q.json: full_attention_interval 2 is not 4: the qwen3_5 family models 3 Gated DeltaNet layers "
                       "then 1 full-attention layer",
                       DataError);
  CHECK_THROWS_WITH_AS(with("attn_output_gate", "false"),
                       "q.json: attn_output_gate false is not true: the qwen3_5 family models gated full attention",
                       DataError);
  CHECK_THROWS_WITH_AS(with("mlp_only_layers", "[3]"),
                       "q.json: mlp_only_layers [3] is not empty: the qwen3_5 family models every layer as MoE",
                       DataError);
  CHECK_THROWS_WITH_AS(with("mamba_ssm_dtype", R"("bfloat16")"),
                       "q.json: mamba_ssm_dtype 'bfloat16' is not float32: the gdn kinds and the KV budget hold fp32 "
                       "recurrent states",
                       DataError);
  CHECK_THROWS_WITH_AS(with("linear_num_value_heads", "0"), "q.json: 'linear_num_value_heads' is 0; it must be at least 1",
                       DataError);
  // Heads tp does not divide, and a layer count off the period (run-time forms).
  CHECK_THROWS_WITH_AS(Qwen3_5<Qwen3_5Config>(deploy(qwen3_5_397b_a17b, {.tp = 32, .ep = 32})), "tp 32 does not divide linear_num_key_heads 16", ConfigError);
  Qwen3_5Config odd = deploy(qwen3_5_397b_a17b, {.tp = 8, .ep = 8});
  odd.linear.num_key_heads = 12;
  CHECK_THROWS_WITH_AS(Qwen3_5<Qwen3_5Config>{odd}, "tp 8 does not divide linear_num_key_heads 12", ConfigError);
  odd = deploy(qwen3_5_397b_a17b, {.tp = 4, .ep = 4});
  odd.num_qo_heads = 30;
  CHECK_THROWS_WITH_AS(Qwen3_5<Qwen3_5Config>{odd}, "tp 4 does not divide num_qo_heads 30", ConfigError);
  Qwen3_5Config bad = deploy(qwen3_5_397b_a17b, {.tp = 1, .ep = 1});
  bad.num_layers = 62;
  CHECK_THROWS_WITH_AS(Qwen3_5<Qwen3_5Config>{bad},
                       "num_layers 62 is not a multiple of 4: Qwen3.5 repeats 3 linear-attention (Gated DeltaNet) "
                       "layers then 1 full-attention one, so it must be a multiple of 4",
                       ConfigError);
}

TEST_CASE("Qwen3.5 at tp 2 / ep 8: a quad of 3 Gated DeltaNet layers (one scaled subtree) and 1 gated full-attention layer") {
  const Timing& t = arch_test::roofline_h200();
  using S = Qwen3_5<Fixed<deploy(qwen3_5_397b_a17b, {.tp = 2, .ep = 8})>>;
  using Tree = decltype(S().build(t));
  const S s;
  const Qwen3_5<Qwen3_5Config> r(deploy(qwen3_5_397b_a17b, {.tp = 2, .ep = 8}));
  CHECK(s.resolved().dp == 4);
  CHECK(r.resolved().periods == 15);
  const auto st = s.build(t);
  const Manifest m = make_manifest(st);
  const nlohmann::json j = to_json(m);
  const auto slot = [&](std::string_view path) { return j["slots"][arch_test::slot_at<Tree>(path)]; };
  // The linear layer per rank: 8 of 16 k heads, 32 of 64 v heads; q | k | v | z and b | a in, v out.
  CHECK(slot("model.layer.linear.dp.attn.in_proj_qkvz")["config"]["n"]["value"] == 2 * 8 * 128 + 2 * 32 * 128);
  CHECK(slot("model.layer.linear.dp.attn.in_proj_ba")["config"]["n"]["value"] == 2 * 32);
  CHECK(slot("model.layer.linear.dp.attn.out_proj")["config"]["k"]["value"] == 32 * 128);
  CHECK(slot("model.layer.linear.dp.attn.conv_prefill")["kind"] == "gdn_conv1d_prefill");
  CHECK(slot("model.layer.linear.dp.attn.conv_decode")["kind"] == "gdn_conv1d_decode");
  CHECK(slot("model.layer.linear.dp.attn.prefill")["kind"] == "gdn_prefill");
  CHECK(slot("model.layer.linear.dp.attn.prefill")["config"]["num_k_heads"]["value"] == 8);
  CHECK(slot("model.layer.linear.dp.attn.decode")["kind"] == "gdn_decode");
  CHECK(slot("model.layer.linear.dp.attn.decode")["config"]["num_v_heads"]["value"] == 32);
  CHECK(slot("model.layer.linear.dp.attn.norm")["config"]["hidden"]["value"] == 128);
  // The full layer: q twice as wide (q and its gate), 16 q heads and one KV head a rank; the
  // gate applied over the 16 heads' outputs; the per-head q/k norm.
  CHECK(slot("model.layer.full.dp.attn.qkv_proj")["config"]["n"]["value"] == (2 * 16 + 2 * 1) * 256);
  CHECK(slot("model.layer.full.dp.attn.output_gate")["config"]["intermediate"]["value"] == 16 * 256);
  CHECK(slot("model.layer.full.dp.attn.q_norm")["config"]["hidden"]["value"] == 256);
  CHECK(slot("model.layer.full.dp.attn.prefill")["kind"] == "attn_prefill");
  CHECK(slot("model.layer.full.shared_expert.up_gate_proj")["config"]["n"]["value"] == 2 * 1024);
  bool scaled_by_3 = false;
  for (const FlatNode& n : m.tree.nodes()) scaled_by_3 |= n.kind == NodeKind::scale && n.param == 3;
  CHECK(scaled_by_3);

  // A linear layer's work does not grow with the context: decodes at KV 90,000 cost its
  // slots what decodes at KV 900 cost, and a chunk after a 30,000-token prefix what a
  // fresh chunk of its length costs; the full layer's attention grows with both.
  DpDeal deal;
  const auto row_of = [&](const std::vector<ops::PrefillChunk>& prefill, std::uint32_t kv) {
    const std::vector<std::uint32_t> decode(16, kv);
    std::array<Metrics, n_slots<Tree>> row{};
    evaluate(st, s.inputs(deal.deal({prefill, decode}, s.resolved().dp, {})), row);
    return row;
  };
  const auto near = row_of({{0, 2048}}, 900), far = row_of({{30000, 2048}}, 90000);
  for (std::string_view leaf : {"conv_prefill", "conv_decode", "prefill", "decode"}) {
    const std::size_t i = arch_test::slot_at<Tree>("model.layer.linear.dp.attn." + std::string(leaf));
    INFO(leaf);
    CHECK(near[i].time_s > 0);
    CHECK(near[i] == far[i]);
  }
  for (std::string_view leaf : {"prefill", "decode"}) {
    const std::size_t i = arch_test::slot_at<Tree>("model.layer.full.dp.attn." + std::string(leaf));
    CHECK(far[i].time_s > near[i].time_s);
  }

  // Both forms, and the DP laws every DP arch keeps.
  const std::vector<ops::PrefillChunk> prefill{{0, 12000}, {4096, 1000}};
  const std::vector<std::uint32_t> decode(8, 9000);
  const auto totals = arch_test::check_feed_law(s, r, t, {prefill, decode}, ops::moe::Routing{0.8});
  CHECK(totals[0] == totals[1]);
  CHECK(to_json(make_manifest(st)) == to_json(make_manifest(r.build(t))));
  arch_test::check_slot_families(make_manifest(r.build(t)));
  const Qwen3_5<Qwen3_5Config, worklets::ExpertGrain::tp> tp_experts(deploy(qwen3_5_397b_a17b, {.tp = 4, .ep = 1}));
  arch_test::check_slot_families(make_manifest(tp_experts.build(t)));
  CHECK(evaluate(tp_experts.build(t), tp_experts.inputs(deal.deal({prefill, decode}, 1, {}))).time_s > 0);
}

TEST_CASE("Qwen3.5: GDN prefill chunks run as one launch: the mean chunk's time, the chunks' exact work") {
  const Timing& t = arch_test::roofline_h200();
  const ops::GdnChunks<kernels::GdnPrefill> k{
      Kernel<kernels::GdnPrefill>(t, {Dtype::bf16, Dim{8}, Dim{128}, Dim{32}, Dim{128}})};
  const std::vector<ops::PrefillChunk> two{{0, 100}, {500, 300}}, same{{0, 200}, {0, 200}};
  const Metrics m = k.eval(two), u = k.eval(same);
  CHECK(m.time_s == u.time_s);  // both launch 2 sequences of 200 tokens
  const kernels::GdnPrefill::Config c{Dtype::bf16, Dim{8}, Dim{128}, Dim{32}, Dim{128}};
  CHECK(m.flops == kernels::GdnPrefill::flops(c, {1, 100}) + kernels::GdnPrefill::flops(c, {1, 300}));
  CHECK(m.bytes == kernels::GdnPrefill::bytes(c, {1, 100}) + kernels::GdnPrefill::bytes(c, {1, 300}));
  CHECK(k.eval({}) == Metrics{});
}

TEST_CASE("Qwen3.5's weights, KV and recurrent state: only the full layers keep KV; the state is per request") {
  const Qwen3_5<Qwen3_5Config> one(deploy(qwen3_5_397b_a17b, {.tp = 1, .ep = 1}));
  // 397B parameters (the language model; the vision tower and the MTP layer are not in it).
  CHECK(one.weight_bytes_per_gpu() / 2 > 394e9);
  CHECK(one.weight_bytes_per_gpu() / 2 < 398e9);
  const Qwen3_5<Qwen3_5Config> m(deploy(qwen3_5_397b_a17b, {.tp = 4, .ep = 4}));
  // Only the 15 full layers keep every token's KV: 15 × 2 KV heads × 256 × 2 (K and V) × 2 bytes.
  CHECK(m.kv_bytes_per_token() == doctest::Approx(15.0 * 2 * 256 * 2 * 2));
  // Per request on one of 4 GPUs, in each of the 45 linear layers: 16 v heads' fp32 128 × 128
  // states and the last 3 inputs of (2 · 16 · 128 + 64 · 128) / 4 conv channels in bf16.
  CHECK(m.recurrent_state_bytes_per_request_per_gpu() == 45.0 * (16 * 128 * 128 * 4 + 3072 * 3 * 2));
  CHECK(Qwen3_5<Qwen3_5Config>(deploy(qwen3_5_397b_a17b, {.tp = 8, .ep = 8})).recurrent_state_bytes_per_request_per_gpu() ==
        m.recurrent_state_bytes_per_request_per_gpu() / 2);
}

TEST_CASE("Qwen3.5: a request's recurrent state takes its KV tokens' worth of the pool beside its KV") {
  const Timing& t = arch_test::roofline_h200();
  Qwen3_5Config c = deploy(qwen3_5_397b_a17b, {.tp = 4, .ep = 4});  // one DP group of 4 GPUs
  c.gemm_dtype = c.expert_dtype = Dtype::fp8;
  const Qwen3_5<Qwen3_5Config> m(c);
  serve::ServerConfig cfg;
  const serve::KvBudget b = serve::kv_budget(m, t.gpu(), cfg);
  const double state = m.recurrent_state_bytes_per_request_per_gpu();
  CHECK(b.state_tokens == static_cast<std::uint64_t>(std::ceil(state / b.bytes_per_token)));
  // 48,015,360 bytes (45 layers × 1,067,008) against 15,360 of bf16 KV a token (15 layers' K
  // and V of one KV head, replicated over the 4 ranks): 3,126 tokens' worth.
  CHECK(b.state_tokens == 3126);
  // The deployment search's worker (serve::WorkerOption) reckons it alike.
  serve::WorkerFacts f{4, 1, m.weight_bytes_per_gpu(), m.kv_bytes_per_token_per_gpu(), m.kv_bytes_per_token(), state};
  CHECK(serve::WorkerOption{{}, f, 1000000, false}.state_tokens() == b.state_tokens);
  f.state_bytes_per_request_per_gpu = 0;  // a KV cache alone adds nothing
  CHECK(serve::WorkerOption{{}, f, 1000000, false}.state_tokens() == 0);

  // Four requests of 1,000 + 100 tokens on a pool of two footprints: with the states only
  // two run at once; without, all four.
  serve::ArchModel<Qwen3_5<Qwen3_5Config>> model(m, t);
  const std::vector<serve::Request> reqs(4, serve::Request{0, 1000, 100});
  cfg.state_tokens = b.state_tokens;
  const std::uint64_t pool = 2 * (1104 + b.state_tokens);  // 1,100 tokens in blocks of 16, and the state
  serve::Worker<serve::ArchModel<Qwen3_5<Qwen3_5Config>>> w(model, reqs, cfg, pool);
  CHECK(w.footprint(reqs[0]) == 1104 + b.state_tokens);
  CHECK(serve::simulate(model, reqs, cfg, pool).batch_peak == 2);
  cfg.state_tokens = 0;
  CHECK(serve::simulate(model, reqs, cfg, pool).batch_peak == 4);
}
