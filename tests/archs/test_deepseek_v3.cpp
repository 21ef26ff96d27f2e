#include <doctest/doctest.h>

#include <vector>

#include "costdsl/costdsl.hpp"
#include "costdsl/archs/deepseek_v3.hpp"
#include "costdsl/data_dir.hpp"
#include "costdsl/detail/read_text_file.hpp"
#include "costdsl/load_hf_config.hpp"

#include <nlohmann/json.hpp>

#include "feed_law.hpp"
#include "tp_experts_law.hpp"

#include "common.hpp"

using namespace costdsl;
using namespace costdsl::archs;

namespace {
using arch_test::Batch;
using arch_test::roofline_h200;
constexpr DeepseekV3Config tp8 = deploy(deepseek_v3, {.tp = 8, .ep = 8});
// DeepSeek-V3's per-rank MLA shape at tp 8: 16 heads.
ops::MlaConfig mla_tp8() { return {Dtype::bf16, Dtype::bf16, Dtype::bf16, 16, 512, 128, 64, 128}; }
}  // namespace

TEST_CASE("MLA op: chunk fan-in, expanded rows, decode collapse and empty phases") {
  const std::vector<ops::PrefillChunk> chunks{{0, 512}, {1024, 128}};
  const std::vector<std::uint32_t> decodes{100, 200, 300};
  const ops::MlaWork w = ops::collapse_mla({chunks, decodes});
  CHECK(w.append_tokens == 643);
  CHECK(w.expanded_rows == 512 + 1024 + 128);  // kv_b_proj expands every key a chunk attends to
  CHECK(w.decode_count == 3);
  CHECK(w.decode_total_kv == 600);

  const Timing& t = roofline_h200();
  const auto tree = ops::Mla::build(t, mla_tp8());
  static_assert(n_slots<decltype(tree)> == 6);
  std::array<Metrics, 6> row{};
  const Metrics total = evaluate(tree, ops::Mla::inputs(w, 16), row);
  // The latent is written once per token: 576 elements read (bf16) + written (bf16) + the slot index.
  CHECK(row[0].bytes == 643.0 * (576 * 2 * 2 + 8));
  CHECK(row[1].flops == 2.0 * 1664 * 16 * (128 + 128) * 512);
  // All chunks run as one batched launch: its equivalent uniform batch (2 × 320 new tokens, prefix 262).
  const Kernel<kernels::MlaPrefill> pre(t, kernels::MlaPrefill::deepseek_v3(Dtype::bf16, 16));
  CHECK(row[2].time_s == pre.eval({2, 262, 320}).time_s);
  CHECK(row[2].flops == pre.eval({1, 0, 512}).flops + pre.eval({1, 1024, 128}).flops);
  CHECK(row[3].flops == 2.0 * 3 * 16 * 512 * 128);  // q_nope · W_UK per head
  CHECK(row[4].time_s > 0);
  CHECK(row[5].flops == 2.0 * 3 * 16 * 128 * 512);  // latent o · W_UV per head
  double sum = 0;
  for (const Metrics& m : row) sum += m.time_s;
  CHECK(total.time_s == doctest::Approx(sum));

  // Prefill only: the decode path pushes zero; decode only: the prefill path does.
  evaluate(tree, ops::Mla::inputs(ops::collapse_mla({chunks, {}}), 16), row);
  CHECK(row[3] == Metrics{});
  CHECK(row[4] == Metrics{});
  CHECK(row[5] == Metrics{});
  evaluate(tree, ops::Mla::inputs(ops::collapse_mla({{}, decodes}), 16), row);
  CHECK(row[1] == Metrics{});
  CHECK(row[2] == Metrics{});
  CHECK(row[0].bytes == 3.0 * (576 * 4 + 8));
  // Nothing at all: every leaf is zero.
  CHECK(evaluate(tree, ops::Mla::inputs(ops::collapse_mla({}), 16)) == Metrics{});
}

TEST_CASE("mla_block_tp at tp 8 reproduces the reference shapes") {
  using Attn = worklets::MlaBlockTp<Fixed<tp8>>;
  constexpr auto r = Attn::resolve_config(Fixed<tp8>{});
  static_assert(r.num_heads_per_rank.value() == 16);
  static_assert(r.q_b_n.value() == 16 * 192);
  static_assert(r.kv_a_n.value() == 512 + 64);
  static_assert(r.o_proj_k.value() == 16 * 128);
  static_assert(decltype(r.has_allreduce)::value);
  const nlohmann::json j = to_json(make_manifest(Attn(Fixed<tp8>{}).build(roofline_h200())));
  const std::vector<std::string> names{
      "attn.input_norm", "attn.q_a_proj", "attn.q_a_norm",  "attn.q_b_proj",      "attn.kv_a_proj",
      "attn.kv_a_norm",  "attn.rope", "attn.kv_cache_append", "attn.kv_b_proj", "attn.prefill", "attn.q_absorb",
      "attn.decode",     "attn.o_absorb", "attn.o_proj",    "attn.tp_allreduce"};
  REQUIRE(j["slots"].size() == names.size());
  for (std::size_t i = 0; i < names.size(); ++i) CHECK(j["slots"][i]["name"] == names[i]);
  CHECK(j["slots"][1]["config"]["n"]["value"] == 1536);
  CHECK(j["slots"][1]["config"]["k"]["value"] == 7168);
  CHECK(j["slots"][3]["config"]["n"]["value"] == 3072);
  CHECK(j["slots"][3]["config"]["n"]["formula"] == "num_heads/tp*(qk_nope_head_dim+qk_rope_head_dim)");
  CHECK(j["slots"][3]["config"]["k"]["value"] == 1536);
  CHECK(j["slots"][4]["config"]["n"]["value"] == 576);
  CHECK(j["slots"][7]["config"]["num_kv_heads"]["value"] == 1);
  CHECK(j["slots"][7]["config"]["head_dim"]["value"] == 288);  // two planes of half the latent
  CHECK(j["slots"][8]["config"]["n"]["value"] == 16 * 256);
  CHECK(j["slots"][8]["config"]["k"]["value"] == 512);
  CHECK(j["slots"][13]["config"]["n"]["value"] == 7168);
  CHECK(j["slots"][13]["config"]["k"]["value"] == 2048);
  // tp 1: per-rank == full, no collective.
  using Local = worklets::MlaBlockTp<Fixed<deploy(deepseek_v3)>>;
  static_assert(n_slots<decltype(Local(Fixed<deploy(deepseek_v3)>{}).build(roofline_h200()))> == 14);
  static_assert(Local::resolve_config(Fixed<deploy(deepseek_v3)>{}).q_b_n.value() == 128 * 192);
}

TEST_CASE("heads % tp and the layer split are checked with the rule and values") {
  CHECK_THROWS_WITH_AS(worklets::MlaBlockTp<DeepseekV3Config>(deploy(deepseek_v3, {.tp = 3, .ep = 3})),
                       "tp 3 does not divide num_heads 128", ConfigError);
  CHECK_THROWS_WITH_AS(worklets::MlaBlockTp<DeepseekV3Config>(deploy(deepseek_v3, {.tp = 256, .ep = 256})),
                       "tp 256 does not divide num_heads 128", ConfigError);
  CHECK_THROWS_AS(worklets::MlaBlockTp<DeepseekV3Config>(deploy(deepseek_v3, {.tp = 0, .ep = 8})), ConfigError);
  CHECK_THROWS_WITH_AS((DeepseekV3<DeepseekV3Config>(deploy(deepseek_v3, {.tp = 8, .ep = 4}))),
                       "tp 8 does not divide ep 4", ConfigError);
  CHECK_THROWS_WITH_AS((DeepseekV3<DeepseekV3Config>(deploy(deepseek_v3, {.tp = 8, .ep = 24}))),
                       "ep 24 does not divide num_experts 256", ConfigError);
  DeepseekV3Config bad = tp8;
  bad.num_dense_layers = 62;
  CHECK_THROWS_WITH_AS((DeepseekV3<DeepseekV3Config>(bad)), "num_layers 61 - num_dense_layers 62 is negative",
                       ConfigError);
}

TEST_CASE("the model: two Scales (3 dense, 58 MoE), fixed slot list, tp 1 without collectives") {
  const DeepseekV3<Fixed<tp8>> arch;
  static_assert(std::is_same_v<decltype(arch.resolved().num_dense_layers), Static<3>>);
  static_assert(std::is_same_v<decltype(arch.resolved().num_moe_layers), Static<58>>);
  const auto tree = arch.build(roofline_h200());
  // embed 2 + dense (attn 15 + mlp 5) + moe (attn 15 + router 2 + dispatch, fused experts, combine, moe_sum,
  // combine_allreduce 5 + shared 3) + lm_head 3
  static_assert(n_slots<decltype(tree)> == 50);
  const nlohmann::json j = to_json(make_manifest(tree));
  CHECK(j["slots"][2]["name"] == "model.dense_layer.dp.attn.input_norm");
  CHECK(j["slots"][22]["name"] == "model.moe_layer.dp.attn.input_norm");
  CHECK(j["slots"][39]["name"] == "model.moe_layer.moe.dispatch");
  CHECK(j["slots"][40]["name"] == "model.moe_layer.moe.experts");
  CHECK(j["slots"][40]["kind"] == "fused_moe");
  CHECK(j["slots"][42]["name"] == "model.moe_layer.moe.moe_sum");
  CHECK(j["slots"][43]["name"] == "model.moe_layer.moe.combine_allreduce");
  CHECK(j["slots"][44]["name"] == "model.moe_layer.shared_expert.up_gate_proj");
  CHECK(j["slots"][44]["config"]["n"]["value"] == 2 * 2048);
  const auto local = DeepseekV3<Fixed<deploy(deepseek_v3)>>().build(roofline_h200());
  // 2 attn + 1 mlp all-reduce, dispatch, combine, moe_sum, combine_allreduce, the embedding's
  // all-reduce and the lm_head's all-gather
  static_assert(n_slots<decltype(local)> == 50 - 9);
}

TEST_CASE("the shared expert overlaps the routed path (Parallel 0.9), not serially") {
  const Timing& t = roofline_h200();
  const DeepseekV3<Fixed<tp8>> arch;
  const auto tree = arch.build(t);
  const Batch b{{}, std::vector<std::uint32_t>(64, 2048)};
  const std::vector<ops::AttentionBatch> groups{b.it()};
  std::array<Metrics, 50> row{};
  evaluate(tree, arch.inputs({groups, {}}), row);
  Metrics routed = algebra::empty(), shared = algebra::empty();
  for (std::size_t i = 39; i < 44; ++i) algebra::accumulate_sum(routed, row[i]);
  for (std::size_t i = 44; i < 47; ++i) algebra::accumulate_sum(shared, row[i]);
  // tp 8 = ep 8: one attention group, every rank holds every token: no dispatch, one all-reduce.
  CHECK(row[39].time_s == 0);
  CHECK(row[43].time_s > 0);
  CHECK(routed.time_s > 0);
  CHECK(shared.time_s > 0);
  // Re-aggregating the row over the manifest's flat nodes reproduces the total (INV-6).
  const FlatTree flat = flat_tree_from_manifest(to_json(make_manifest(tree)));
  CHECK(flat.aggregate(row).time_s == doctest::Approx(evaluate(tree, arch.inputs({groups, {}})).time_s));
}

TEST_CASE("KV bytes per token: one latent per layer, not split by tp; weights per GPU") {
  const DeepseekV3<Fixed<tp8>> arch;
  CHECK(arch.kv_bytes_per_token() == (512.0 + 64) * 2 * 61);
  CHECK(arch.kv_bytes_per_token_per_gpu() == arch.kv_bytes_per_token());
  // DeepSeek-V3 has 671 B parameters (without the 14 B MTP module).
  const DeepseekV3<Fixed<deploy(deepseek_v3)>> one;
  CHECK(one.weight_bytes_per_gpu() / 2 == doctest::Approx(671e9).epsilon(0.01));
  CHECK(arch.weight_bytes_per_gpu() < one.weight_bytes_per_gpu() / 7);
}

TEST_CASE("static and run-time forms give identical totals and manifests") {
  const Timing& t = roofline_h200();
  for (const Batch& b : {Batch{{{0, 4096}}, std::vector<std::uint32_t>(64, 2048)}, Batch{{}, {1, 2, 3}},
                         Batch{{{1024, 128}, {0, 512}}, {4096}}, Batch{}}) {
    const std::vector<ops::AttentionBatch> groups{b.it()};
    const MoeIteration it{groups, {1.0, ops::moe::Placement::strided}};
    const DeepseekV3<Fixed<tp8>> s;
    const DeepseekV3<DeepseekV3Config> r(tp8);
    const auto st = s.build(t);
    const auto rt = r.build(t);
    CHECK(evaluate(st, s.inputs(it)) == evaluate(rt, r.inputs(it)));
    CHECK(to_json(make_manifest(st)) == to_json(make_manifest(rt)));
  }
}

TEST_CASE("DP attention: the degree is data, the slowest group sets the time, every group's work counts") {
  const Timing& t = roofline_h200();
  const Batch a{{}, std::vector<std::uint32_t>(32, 1024)}, b{{}, std::vector<std::uint32_t>(8, 1024)};
  const std::vector<ops::AttentionBatch> two{a.it(), b.it()}, heavy{a.it()}, light{b.it()};
  const DeepseekV3<DeepseekV3Config> dp2(deploy(deepseek_v3, {.tp = 4, .ep = 8})), dp1(deploy(deepseek_v3, {.tp = 4, .ep = 4}));
  static_assert(std::is_same_v<decltype(dp2.build(t)), decltype(dp1.build(t))>);  // one tree type for every dp
  CHECK(dp2.resolved().dp == 2);
  const auto tree = dp2.build(t);
  std::array<Metrics, n_slots<decltype(tree)>> row{};
  const Metrics m = evaluate(tree, dp2.inputs({two, {}}), row);
  CHECK(m.time_s > 0);
  // The static form at the same degree agrees bitwise.
  const DeepseekV3<Fixed<deploy(deepseek_v3, {.tp = 4, .ep = 8})>> s;
  CHECK(evaluate(s.build(t), s.inputs({two, {}})) == m);
  // A group's attention row: the heavy group's time, both groups' work.
  const worklets::MlaBlockTp<DeepseekV3Config> mla(deploy(deepseek_v3, {.tp = 4, .ep = 8}));
  const auto mla_tree = mla.build(t);
  std::array<Metrics, n_slots<decltype(mla_tree)>> ra{}, rb{};
  evaluate(mla_tree, mla.inputs({32, ops::collapse_mla(a.it())}), ra);
  evaluate(mla_tree, mla.inputs({8, ops::collapse_mla(b.it())}), rb);
  const std::size_t decode = 2 + 11;  // embed (and its all-reduce), then dense_layer.dp.attn.decode (the 12th MLA slot)
  REQUIRE(std::string(slot_paths<decltype(tree)>[decode]) == "model.dense_layer.dp.attn.decode");
  CHECK(row[decode].time_s == ra[11].time_s);
  CHECK(row[decode].flops == ra[11].flops + rb[11].flops);
  // The manifest carries the degree.
  const nlohmann::json j = to_json(make_manifest(tree));
  int fanouts = 0;
  for (const auto& n : j["nodes"]) fanouts += n.contains("ranks") && n["ranks"] == 2;
  CHECK(fanouts == 4);  // embed, dense layer, moe layer, lm_head
  CHECK_THROWS_WITH_AS(dp2.inputs({heavy, {}}), "DeepseekV3: the iteration has 1 DP group batches, dp is 2",
                       InputError);
  (void)light;
}

TEST_CASE("inputs(it, scratch) equals inputs(it); warm, a dealt iteration allocates nothing (issue 7)") {
  const DeepseekV3<Fixed<deploy(deepseek_v3, {.tp = 4, .ep = 8})>> s;
  const DeepseekV3<DeepseekV3Config> r(deploy(deepseek_v3, {.tp = 4, .ep = 8}));
  const std::vector<ops::PrefillChunk> prefill{{0, 4096}, {512, 1024}};
  const std::vector<std::uint32_t> decode(64, 2048);
  const auto totals = arch_test::check_feed_law(s, r, roofline_h200(), {prefill, decode}, {1.2});
  CHECK(totals[0] == totals[1]);  // same shapes: the two forms agree
}

TEST_CASE("shipped config.json agrees with the static preset") {
  const DeepseekV3Config c =
      DeepseekV3Config::from_hf(load_hf_config(default_data_dir() / "models" / "deepseek_v3.json"), {.tp = 8, .ep = 8});
  CHECK(to_json(make_manifest(DeepseekV3<DeepseekV3Config>(c).build(roofline_h200()))) ==
        to_json(make_manifest(DeepseekV3<Fixed<tp8>>().build(roofline_h200()))));
  CHECK(c.num_layers == 61);
  CHECK(c.num_dense_layers == 3);
  CHECK(c.num_experts == 256);
  CHECK(c.top_k == 8);
  CHECK(c.shared_intermediate == 2048);
  CHECK(c.vocab == 129280);
  CHECK(c.kv_dtype == Dtype::bf16);
}

TEST_CASE("DeepSeek-V3 at tp 8 / ep 8 on H200: 64 decodes at 2048 KV take tens of ms") {
  const DeepseekV3<Fixed<tp8>> arch;
  const auto tree = arch.build(roofline_h200());
  const Batch b{{}, std::vector<std::uint32_t>(64, 2048)};
  const std::vector<ops::AttentionBatch> groups{b.it()};
  const Metrics m = evaluate(tree, arch.inputs({groups, {}}));
  // ~168 GB of bf16 weights per GPU, nearly all experts active: about 35 ms at 4.8 TB/s.
  CHECK(m.time_ms() > 20);
  CHECK(m.time_ms() < 100);
  CHECK(has(m.coverage, Coverage::analytic));
  MESSAGE("DeepSeek-V3 tp8/ep8 decode 64x2048 on H200 (roofline): ", m.time_ms(), " ms");
}

TEST_CASE("DeepSeek-V3 with TP experts (ep 1 over tp 8): routed and shared experts split tp ways; tp 1 is EP at ep 1") {
  constexpr DeepseekV3Config sharded = deploy(deepseek_v3, {.tp = 8, .ep = 1});
  using TpExperts = DeepseekV3<DeepseekV3Config, AttnGrain::tp, ExpertGrain::tp>;
  static_assert(std::is_same_v<DeepseekV3<Fixed<sharded>>, DeepseekV3<Fixed<sharded>, AttnGrain::tp, ExpertGrain::tp>>);
  arch_test::check_tp_experts<DeepseekV3<Fixed<sharded>>, TpExperts, DeepseekV3<DeepseekV3Config>>(
      sharded, deploy(deepseek_v3), {"model.moe_layer.moe"});
  // ep 8 (dp 1) holds an eighth of the experts too, but the shared expert whole: TP experts
  // hold 7/8 of it less in every MoE layer (bf16).
  const DeepseekV3<DeepseekV3Config> ep8(deploy(deepseek_v3, {.tp = 8, .ep = 8}));
  const TpExperts tp8(sharded);
  CHECK(ep8.weight_bytes_per_gpu() - tp8.weight_bytes_per_gpu() ==
        doctest::Approx(3.0 * 7168 * 2048 * 7 / 8 * 58 * 2));
  CHECK(tp8.kv_bytes_per_token_per_gpu() == ep8.kv_bytes_per_token_per_gpu());  // MLA's latent: whole on every rank
  // The width split is checked first, before MLA's heads % tp.
  CHECK_THROWS_WITH_AS(TpExperts(deploy(deepseek_v3, {.tp = 3, .ep = 1})), "tp 3 does not divide moe_intermediate 2048",
                       ConfigError);
}

TEST_CASE("a multimodal wrapper's text_config is the language model (Kimi-K2.5 reads as DeepSeek-V3)") {
  // Kimi-K2.5's config.json, shortened: a vision wrapper whose text_config is a DeepSeek-V3
  // with 384 experts, one dense layer and an int4 checkpoint costdsl does not read.
  nlohmann::json text = nlohmann::json::parse(
      costdsl::detail::read_text_file(default_data_dir() / "models" / "deepseek_v3.json", "model config"));
  text["n_routed_experts"] = 384;
  text["num_attention_heads"] = 64;
  text["first_k_dense_replace"] = 1;
  text["model_type"] = "kimi_k2";
  text["quantization_config"] = {{"quant_method", "compressed-tensors"}, {"format", "pack-quantized"}};
  const nlohmann::json wrapper{{"architectures", {"KimiK25ForConditionalGeneration"}},
                               {"model_type", "kimi_k25"},
                               {"vision_config", {{"hidden_size", 1152}}},
                               {"text_config", text}};
  HfConfig hf = parse_hf_config(wrapper.dump(), "kimi.json");
  CHECK(hf.text("model_type") == "kimi_k2");  // the language model's keys stand at the top
  CHECK(hf.has("vision_config.hidden_size"));  // the wrapper's others stay
  CHECK_THROWS_WITH_AS(hf.quantization(),
                       "kimi.json: quantization_config (compressed-tensors): config_groups.group_0.weights needs "
                       "num_bits and type",
                       DataError);
  // One weight format chosen is not enough; both make the checkpoint's moot (an NVFP4 build of it).
  hf.override_quantization({Dtype::fp4, std::nullopt, std::nullopt});
  CHECK_THROWS_AS(hf.quantization(), DataError);
  // Kimi-K2.5 as shipped: one W4A16 group, attention, shared experts and dense MLPs ignored:
  // int4 routed experts, the rest 16-bit. Elsewhere int4 is not modelled, nor activations.
  const nlohmann::json w4a16{{"weights", {{"num_bits", 4}, {"type", "int"}, {"group_size", 32}}},
                             {"input_activations", nullptr}};
  const nlohmann::json ignore{"lm_head", "re:.*self_attn.*", "re:.*shared_experts.*",
                              "re:.*mlp\\.(gate|up|gate_up|down)_proj.*"};
  const auto with = [&](nlohmann::json group, nlohmann::json ignored) {
    nlohmann::json w = wrapper;
    w["text_config"]["quantization_config"]["config_groups"] = {{"group_0", group}};
    w["text_config"]["quantization_config"]["ignore"] = ignored;
    return parse_hf_config(w.dump(), "kimi.json");
  };
  const Quantization q = with(w4a16, ignore).quantization();
  CHECK(q.expert_dtype == Dtype::int4);
  CHECK(q.gemm_dtype == Dtype::bf16);
  CHECK(q.kv_dtype == Dtype::bf16);
  CHECK_THROWS_WITH_AS(with(w4a16, nlohmann::json{"lm_head"}).quantization(),
                       doctest::Contains("int4 weights outside the routed experts"), DataError);
  nlohmann::json w8 = w4a16;
  w8["weights"]["num_bits"] = 8;
  CHECK_THROWS_WITH_AS(with(w8, ignore).quantization(), doctest::Contains("num_bits 8"), DataError);
  nlohmann::json a8 = w4a16;
  a8["input_activations"] = {{"num_bits", 8}};
  CHECK_THROWS_WITH_AS(with(a8, ignore).quantization(), doctest::Contains("quantized activations"), DataError);
  // Its int4 experts read the bytes of 4.5 bits a weight and run on the 16-bit tensor cores.
  CHECK(bytes_per_element(Dtype::int4) == 4.5 / 8);
  CHECK(parse_quant_flag("moe=int4").expert_dtype == Dtype::int4);
  CHECK_THROWS_WITH_AS(parse_quant_flag("int4"), doctest::Contains("routed experts only"), InputError);
  CHECK_THROWS_WITH_AS(parse_quant_flag("gemm=int4"), doctest::Contains("routed experts only"), InputError);
  hf.override_quantization({Dtype::fp4, Dtype::fp4, Dtype::fp8});
  CHECK(hf.quantization() == Quantization{Dtype::fp4, Dtype::fp4, Dtype::fp8});
  const DeepseekV3Config c = DeepseekV3Config::from_hf(hf, {.tp = 1, .ep = 8});
  CHECK(c.num_experts == 384);
  CHECK(c.num_heads == 64);
  CHECK(c.num_dense_layers == 1);
  CHECK(c.num_layers == 61);
  CHECK(c.expert_dtype == Dtype::fp4);
  CHECK_NOTHROW(DeepseekV3<DeepseekV3Config>{c});
  // A config with its own layers is read as it is, text_config or not.
  nlohmann::json flat = text;
  flat["text_config"] = {{"num_hidden_layers", 2}};
  CHECK(parse_hf_config(flat.dump(), "flat.json").dim("num_hidden_layers") == 61);
}

TEST_CASE("DeepSeek-V3: MLA's projections refuse fp8 producers rather than leave them half applied") {
  Quantization q{Dtype::fp8, Dtype::fp8, Dtype::fp8};
  q.fp8_from_attention = true;
  const DeepseekV3<DeepseekV3Config> r(deploy(deepseek_v3, {.tp = 8, .ep = 8}, q));
  CHECK_THROWS_WITH_AS(r.build(arch_test::roofline_h200()),
                       "MlaBlockTp: fp8 producers (attention) are modelled for the attention, gated-MLP and "
                       "shared-expert projections; this layer's projections quantize their own input (--fp8-from none)",
                       ConfigError);
}
