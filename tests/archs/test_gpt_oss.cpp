#include <doctest/doctest.h>

#include <array>
#include <string>
#include <string_view>
#include <vector>

#include "costdsl/costdsl.hpp"
#include "costdsl/archs/gpt_oss.hpp"

#include "../moe/batches.hpp"
#include "feed_law.hpp"
#include "tp_experts_law.hpp"

using namespace costdsl;
using namespace costdsl::archs;

using moe_test::Batches;
using moe_test::roofline_h200;

namespace {
GptOssConfig shipped(const char* name, std::uint32_t tp, std::uint32_t ep) {
  return GptOssConfig::from_hf(load_hf_config(default_data_dir() / "models" / name), {.tp = tp, .ep = ep});
}

bool same(const GptOssConfig& a, const GptOssConfig& b) {
  return a.hidden == b.hidden && a.num_qo_heads == b.num_qo_heads && a.num_kv_heads == b.num_kv_heads &&
         a.head_dim == b.head_dim && a.moe_intermediate == b.moe_intermediate && a.num_experts == b.num_experts &&
         a.top_k == b.top_k && a.vocab == b.vocab && a.num_layers == b.num_layers &&
         a.sliding_window == b.sliding_window && a.tp == b.tp && a.ep == b.ep && a.dtype == b.dtype &&
         a.kv_dtype == b.kv_dtype && a.expert_dtype == b.expert_dtype && a.gemm_dtype == b.gemm_dtype;
}

// A one-group iteration: the prefill chunks and decode KV lengths given.
struct OneGroup {
  std::vector<ops::PrefillChunk> prefill;
  std::vector<std::uint32_t> decode;
  std::array<ops::AttentionBatch, 1> groups{};
  OneGroup(std::vector<ops::PrefillChunk> p, std::vector<std::uint32_t> d)
      : prefill(std::move(p)), decode(std::move(d)), groups{{{prefill, decode}}} {}
  MoeIteration it() const { return {groups, {}}; }
};
}  // namespace

TEST_CASE("GptOss: the layer pair (sliding, full) is the repeated unit; slots in build order") {
  using Tree = decltype(GptOss<Fixed<deploy(gpt_oss_120b, {.tp = 1, .ep = 8})>>().build(roofline_h200()));
  // embed 1 + pair 2 × (attn 7 + router 2 + moe 5) + lm_head 2; tp 1: no attention all-reduce.
  static_assert(n_slots<Tree> == 1 + 2 * 14 + 2);
  const std::vector<std::string> layer{
      "dp.attn.input_norm", "dp.attn.qkv_proj",    "dp.attn.rope",   "dp.attn.kv_cache_append", "dp.attn.prefill",
      "dp.attn.decode",     "dp.attn.o_proj",      "dp.router.post_norm", "dp.router.router",   "moe.dispatch",
      "moe.experts",        "moe.combine",         "moe.moe_sum",    "moe.combine_allreduce"};
  CHECK(std::string(slot_paths<Tree>[0]) == "model.dp.embed.embedding");
  for (std::size_t i = 0; i < layer.size(); ++i) {
    CHECK(std::string(slot_paths<Tree>[1 + i]) == "model.layer.sliding." + layer[i]);
    CHECK(std::string(slot_paths<Tree>[1 + layer.size() + i]) == "model.layer.full." + layer[i]);
  }
}

TEST_CASE("GptOss-120b at tp 2 / ep 8: the static form equals the run-time form read from data/models (bitwise)") {
  const Timing& t = roofline_h200();
  const GptOss<Fixed<deploy(gpt_oss_120b, {.tp = 2, .ep = 8})>> s;
  const GptOss<GptOssConfig> r(shipped("gpt_oss_120b.json", 2, 8));
  CHECK(s.resolved().dp == 4);
  CHECK(r.resolved().periods == 18);
  const auto st = s.build(t);
  const auto rt = r.build(t);
  std::array<Metrics, n_slots<decltype(st)>> srow{}, rrow{};
  const Batches b(4);
  for (double skew : {0.0, 1.2}) {
    CHECK(evaluate(st, s.inputs(b.it({skew})), srow) == evaluate(rt, r.inputs(b.it({skew})), rrow));
    CHECK(srow == rrow);
  }
  CHECK(to_json(make_manifest(st)) == to_json(make_manifest(rt)));
  // The experts read mxfp4 weights under bf16 activations; 128 / 8 = 16 experts per rank.
  const nlohmann::json j = to_json(make_manifest(st));
  using Tree = decltype(st);
  const auto& experts = j["slots"][arch_test::slot_at<Tree>("model.layer.full.moe.experts")];
  CHECK(experts["config"]["num_experts"]["value"] == 16);
  CHECK(experts["config"]["top_k"]["value"] == 4);
  CHECK(experts["config"]["dtype"] == "bf16");
  CHECK(experts["config"]["weight_dtype"] == "mxfp4");
  const auto& prefill = j["slots"][arch_test::slot_at<Tree>("model.layer.sliding.dp.attn.prefill")];
  CHECK(prefill["config"]["window"] == 128);
  CHECK(j["slots"][arch_test::slot_at<Tree>("model.layer.full.dp.attn.prefill")]["config"]["window"] == 0);
  // 20b: 24 layers, 32 experts; the same bitwise agreement at tp 2 / ep 8.
  const GptOss<Fixed<deploy(gpt_oss_20b, {.tp = 2, .ep = 8})>> s20;
  const GptOss<GptOssConfig> r20(shipped("gpt_oss_20b.json", 2, 8));
  const Batches b4(4);
  CHECK(evaluate(s20.build(t), s20.inputs(b4.it())) == evaluate(r20.build(t), r20.inputs(b4.it())));
  CHECK(to_json(make_manifest(s20.build(t))) == to_json(make_manifest(r20.build(t))));
}

TEST_CASE("GptOss: a sliding layer's decode at 131072 KV costs what 128 KV costs; the full layer's costs more") {
  const Timing& t = roofline_h200();
  const GptOss<Fixed<deploy(gpt_oss_20b)>> a;
  const auto tree = a.build(t);
  using Tree = decltype(tree);
  std::array<Metrics, n_slots<Tree>> at_128k{}, at_128{};
  const OneGroup long_kv({}, std::vector<std::uint32_t>(16, 131072)), window_kv({}, std::vector<std::uint32_t>(16, 128));
  evaluate(tree, a.inputs(long_kv.it()), at_128k);
  evaluate(tree, a.inputs(window_kv.it()), at_128);
  const std::size_t sliding = arch_test::slot_at<Tree>("model.layer.sliding.dp.attn.decode");
  const std::size_t full = arch_test::slot_at<Tree>("model.layer.full.dp.attn.decode");
  CHECK(at_128k[sliding] == at_128[sliding]);
  CHECK(at_128k[sliding].time_s > 0);
  CHECK(at_128k[full].time_s > 20 * at_128k[sliding].time_s);  // 1024x the KV: bandwidth against launch floors
  CHECK(at_128k[full].bytes > 900 * at_128k[sliding].bytes);  // 1024x the KV, the same q and o rows
  CHECK(at_128[full] == at_128[sliding]);  // within the window both layers read the same KV
  // Only attention reads the context: the other slots of the pair agree.
  CHECK(at_128k[arch_test::slot_at<Tree>("model.layer.sliding.moe.experts")] ==
        at_128k[arch_test::slot_at<Tree>("model.layer.full.moe.experts")]);
}

TEST_CASE("GptOss: a sliding layer's prefill attends to at most the window per query") {
  const Timing& t = roofline_h200();
  const GptOss<Fixed<deploy(gpt_oss_20b)>> a;
  const auto tree = a.build(t);
  using Tree = decltype(tree);
  std::array<Metrics, n_slots<Tree>> row{};
  // A fresh 4096-token chunk and a 1024-token chunk after 8192 cached tokens.
  const OneGroup g({{0, 4096}, {8192, 1024}}, {});
  evaluate(tree, a.inputs(g.it()), row);
  const double qo = 64, hd = 64, w = 128;
  // Fresh: the first 128 queries see i + 1/2 keys (128·64 pairs), the other 3968 see 128.
  // After 8192 tokens every query sees 128.
  const double sliding_pairs = (128 * 64 + 3968 * w) + 1024 * w;
  const double full_pairs = 4096.0 * 2048 + 1024.0 * (8192 + 512);
  const Metrics sliding = row[arch_test::slot_at<Tree>("model.layer.sliding.dp.attn.prefill")];
  const Metrics full = row[arch_test::slot_at<Tree>("model.layer.full.dp.attn.prefill")];
  CHECK(sliding.flops == doctest::Approx(4 * qo * hd * sliding_pairs));
  CHECK(full.flops == doctest::Approx(4 * qo * hd * full_pairs));
  CHECK(sliding.time_s < full.time_s / 2);
  // K/V read: appended keys plus the prefix in reach (128 of the 8192), 8 kv heads, bf16.
  CHECK(sliding.bytes == doctest::Approx(2.0 * (2 * (4096 + 1024) * qo * hd + 2 * (4096 + 128 + 1024) * 8 * hd)));
}

TEST_CASE("GptOss: the expert GEMMs read mxfp4 weights at 4.25/16 of bf16's bytes") {
  const Timing& t = roofline_h200();
  const double h = 2880, i = 2880;
  const std::uint64_t rows = 64, active = 16;
  const Kernel<kernels::FusedMoe> bf16(t, {Dtype::bf16, 2880, 2880, 16, 4, Dtype::bf16, ExpertLoad::balanced});
  const Kernel<kernels::FusedMoe> mxfp4(t, {Dtype::bf16, 2880, 2880, 16, 4, Dtype::mxfp4, ExpertLoad::balanced});
  const Metrics m16 = bf16.eval({rows, active}), m4 = mxfp4.eval({rows, active});
  const double weights16 = 2.0 * active * 3 * h * i;  // gate/up (2i × h) and down (h × i) per active expert
  const double rest = m16.bytes - weights16;         // activations and outputs: bf16 either way
  CHECK((m4.bytes - rest) / weights16 == doctest::Approx(4.25 / 16));
  CHECK(m4.flops == m16.flops);
  CHECK(m4.time_s < m16.time_s);  // 64 rows over 16 experts: weight-bandwidth bound
  CHECK(bytes_per_element(Dtype::mxfp4) == 4.25 / 8);
  CHECK(name(Dtype::mxfp4) == "mxfp4");
  CHECK(parse_dtype("mxfp4") == Dtype::mxfp4);
  // The whole arch: a full and a bf16-expert twin differ in the experts' weight bytes only.
  GptOssConfig bf16_experts = deploy(gpt_oss_120b);
  bf16_experts.expert_dtype = Dtype::bf16;
  const GptOss<GptOssConfig> a(deploy(gpt_oss_120b)), b(bf16_experts);
  CHECK(a.weight_bytes_per_gpu() < b.weight_bytes_per_gpu() / 3);
}

TEST_CASE("GptOss: mxfp4 weights are their own fused_moe configs; where no table holds one, the roofline, flagged") {
  // h100_sxm's fused_moe table has (bf16, 2048, 768, 2 experts, top 8) from SGLang, at bf16
  // weights only: the same shape with mxfp4 weights is another config.
  const Timing t = load_timing("h100_sxm");
  const Kernel<kernels::FusedMoe> measured(t, {Dtype::bf16, 2048, 768, 2, 8, Dtype::bf16, ExpertLoad::balanced});
  const Kernel<kernels::FusedMoe> mx(t, {Dtype::bf16, 2048, 768, 2, 8, Dtype::mxfp4, ExpertLoad::balanced});
  CHECK(measured.source() == "profile");
  CHECK(!has(measured.eval({64, 0}).coverage, Coverage::analytic));
  CHECK(mx.source() == "roofline");
  const Metrics m = mx.eval({64, 0});
  CHECK(has(m.coverage, Coverage::analytic));
  CHECK(m.time_s > 0);
  const Timing profile_only = load_timing("h100_sxm", TimingMode::profile);
  CHECK(has(Kernel<kernels::FusedMoe>(profile_only, {Dtype::bf16, 2048, 768, 2, 8, Dtype::mxfp4, ExpertLoad::balanced}).eval({64, 0}).coverage,
            Coverage::no_coverage));
  // The table key holds the weights' dtype and the routing the table measured; a table
  // without the weight_dtype column measured weights in the activations' dtype.
  CHECK(profile_key(kernels::FusedMoe::Config{Dtype::bf16, 2048, 768, 2, 8, Dtype::mxfp4, ExpertLoad::balanced}) ==
        std::vector<std::string>{"bf16", "2048", "768", "2", "8", "mxfp4", "balanced"});
  const ProfileSchema schema = profile_schema<kernels::FusedMoe>();
  REQUIRE(schema.config.size() == 7);
  CHECK(schema.config[5].name == "weight_dtype");
  CHECK(schema.config[5].default_from == "dtype");
  // gpt-oss-120b's experts on H100, one GPU: vLLM's own MXFP4 kernel measured them (its
  // w4a16_mxfp4 rows), and a prefill's experts take them, not the roofline.
  const Kernel<kernels::FusedMoe> oss(t, {Dtype::bf16, 2880, 2880, 128, 4, Dtype::mxfp4, ExpertLoad::power_law_1_2},
                                      {"vllm"});
  CHECK(oss.source() == "profile");
  const Metrics om = oss.eval({16384, 0});
  CHECK(!has(om.coverage, Coverage::analytic));
  CHECK(om.time_s > Kernel<kernels::FusedMoe>(load_timing("h100_sxm", TimingMode::roofline),
                                              {Dtype::bf16, 2880, 2880, 128, 4, Dtype::mxfp4,
                                               ExpertLoad::power_law_1_2})
                        .eval({16384, 0})
                        .time_s);  // a 4,096-token prefill's experts: slower than the roofline's
  // A windowed prefill is not in the attn_prefill tables (full causal prefills) either.
  const Kernel<kernels::AttnPrefill> full(t, {Dtype::bf16, 4, 1, 128, 0});
  const Kernel<kernels::AttnPrefill> windowed(t, {Dtype::bf16, 4, 1, 128, 128});
  CHECK(full.source() == "profile");
  CHECK(windowed.source() == "roofline");
  CHECK(has(windowed.eval({1, 0, 1024}).coverage, Coverage::analytic));
}

TEST_CASE("GptOss: W4A8 experts (moe=mxfp4_mxfp8) multiply the same mxfp4 weights under fp8 activations") {
  const Quantization::Choice c = parse_quant_flag("moe=mxfp4_mxfp8");
  CHECK(c.expert_dtype == Dtype::mxfp4);
  CHECK(c.expert_fp8_activations);
  CHECK(parse_quant_flag("gemm=bf16,moe=w4a8_mxfp4_mxfp8").expert_fp8_activations);  // aiconfigurator's name
  CHECK(!parse_quant_flag("moe=mxfp4").expert_fp8_activations);
  CHECK_THROWS_WITH_AS(parse_quant_flag("mxfp4_mxfp8"), doctest::Contains("routed experts only"), InputError);
  CHECK_THROWS_WITH_AS(parse_quant_flag("gemm=mxfp4_mxfp8"), doctest::Contains("routed experts only"), InputError);
  Quantization bf16_w4a8 = Quantization::uniform(Dtype::bf16);
  bf16_w4a8.expert_fp8_activations = true;
  CHECK_THROWS_WITH_AS(bf16_w4a8.check(),
                       "experts with fp8 activations (W4A8) are modelled for mxfp4 expert weights (moe=mxfp4_mxfp8), "
                       "not moe=bf16",
                       InputError);
  // The checkpoint says mxfp4 and nothing of activations: W4A16 unless a deployment says W4A8;
  // naming another expert format drops it.
  HfConfig hf = load_hf_config(default_data_dir() / "models" / "gpt_oss_120b.json");
  CHECK(!hf.quantization().expert_fp8_activations);
  hf.override_quantization(c);
  CHECK(hf.quantization().text() == "gemm=bf16 moe=mxfp4_mxfp8 kv=bf16");
  Quantization::Choice nvfp4_experts;
  nvfp4_experts.expert_dtype = Dtype::fp4;
  CHECK(!hf.quantization().with(nvfp4_experts).expert_fp8_activations);

  // The experts' kernel takes fp8 rows over the same mxfp4 weights: the GPU holds what it held.
  GptOssConfig w4a8 = deploy(gpt_oss_120b, {.tp = 1, .ep = 8});
  w4a8.expert_fp8_activations = true;
  const GptOss<GptOssConfig> a16(deploy(gpt_oss_120b, {.tp = 1, .ep = 8})), a8(w4a8);
  CHECK(a8.weight_bytes_per_gpu() == a16.weight_bytes_per_gpu());
  const Timing& t = roofline_h200();
  const auto tree = a8.build(t);
  const nlohmann::json j = to_json(make_manifest(tree));
  const auto& experts = j["slots"][arch_test::slot_at<decltype(tree)>("model.layer.full.moe.experts")];
  CHECK(experts["config"]["dtype"] == "fp8");
  CHECK(experts["config"]["weight_dtype"] == "mxfp4");
  const Batches b(8);  // one batch per DP group (dp = ep / tp = 8)
  CHECK(evaluate(tree, a8.inputs(b.it())).bytes < evaluate(a16.build(t), a16.inputs(b.it())).bytes);

  // On B200 SGLang's table measured trtllm-gen's W4A8 kernel at gpt-oss's shape: it answers,
  // faster than the W4A16 kernel at a decode batch's rows.
  const Timing b200 = load_timing("b200_sxm");
  const Kernel<kernels::FusedMoe> k8(b200, {Dtype::fp8, 2880, 2880, 128, 4, Dtype::mxfp4, ExpertLoad::power_law_1_2});
  const Kernel<kernels::FusedMoe> k16(b200, {Dtype::bf16, 2880, 2880, 128, 4, Dtype::mxfp4, ExpertLoad::power_law_1_2});
  CHECK(k8.source() == "profile");
  const Metrics m8 = k8.eval({256, 0});
  CHECK(!has(m8.coverage, Coverage::analytic));
  CHECK(m8.time_s < k16.eval({256, 0}).time_s);
}

TEST_CASE("GptOss: inputs(it, scratch) and BatchFeed equal inputs(it); warm, nothing allocates") {
  const GptOss<Fixed<deploy(gpt_oss_20b, {.tp = 1, .ep = 8})>> s;
  const GptOss<GptOssConfig> r(deploy(gpt_oss_120b, {.tp = 2, .ep = 8}));
  const std::vector<ops::PrefillChunk> prefill{{0, 4096}, {100, 300}};
  const std::vector<std::uint32_t> decode(61, 2048);
  const auto totals = arch_test::check_feed_law(s, r, roofline_h200(), {prefill, decode}, ops::moe::Routing{1.2});
  CHECK(totals[1].time_s > totals[0].time_s);  // 120b is the bigger model
}

TEST_CASE("GptOss: bad configs name the field, its value and the rule") {
  GptOssConfig odd = deploy(gpt_oss_20b);
  odd.num_layers = 23;
  CHECK_THROWS_WITH_AS(GptOss<GptOssConfig>{odd},
                       "num_layers 23 is odd: GptOss repeats a (sliding-window, full attention) layer pair, so it "
                       "must be even",
                       ConfigError);
  CHECK_THROWS_WITH_AS(GptOss<GptOssConfig>(deploy(gpt_oss_20b, {.tp = 1, .ep = 3})), "ep 3 does not divide num_experts 32",
                       ConfigError);
  CHECK_THROWS_WITH_AS(GptOss<GptOssConfig>(deploy(gpt_oss_120b, {.tp = 1, .ep = 256})),
                       "ep 256 does not divide num_experts 128", ConfigError);
  CHECK_THROWS_WITH_AS(GptOss<GptOssConfig>(deploy(gpt_oss_120b, {.tp = 12, .ep = 12})),
                       "num_kv_heads 8 does not divide tp 12", ConfigError);
  GptOssConfig no_window = deploy(gpt_oss_20b);
  no_window.sliding_window = 0;
  CHECK_THROWS_WITH_AS(GptOss<GptOssConfig>{no_window}, "sliding_window is 0; it must be at least 1", ConfigError);
  for (std::uint32_t ep : {1u, 2u, 4u, 8u, 16u, 32u}) CHECK_NOTHROW(GptOss<GptOssConfig>(deploy(gpt_oss_20b, {.tp = 1, .ep = ep})));
  // config.json: layer_types that do not alternate, an unknown quantization.
  const std::string base = R"("hidden_size": 2880, "num_attention_heads": 64, "num_key_value_heads": 8, "head_dim": 64,
      "intermediate_size": 2880, "num_local_experts": 32, "num_experts_per_tok": 4, "vocab_size": 201088,
      "sliding_window": 128, "num_hidden_layers": 2)";
  CHECK_THROWS_WITH_AS(
      GptOssConfig::from_hf(parse_hf_config("{" + base + R"(, "layer_types": ["full_attention", "sliding_attention"]})",
                                            "x.json"), {.tp = 1, .ep = 1}),
      "x.json: layer_types [\"full_attention\",\"sliding_attention\"] is not 2 entries alternating sliding_attention, "
      "full_attention (sliding first): GptOss repeats that pair",
      DataError);
  CHECK_THROWS_WITH_AS(
      GptOssConfig::from_hf(parse_hf_config("{" + base + R"(, "quantization_config": {"quant_method": "gptq", "bits": 4}})", "x.json"), {.tp = 1, .ep = 1}),
      "x.json: quantization_config.quant_method 'gptq' is not modelled (fp8, fp8 with weight_block_size, mxfp4, "
      "modelopt, compressed-tensors int4 weight-only); override it with --quant",
      DataError);
  // Without quantization_config the experts are the checkpoint's dtype; without layer_types HF alternates.
  const GptOssConfig plain = GptOssConfig::from_hf(parse_hf_config("{" + base + "}", "x.json"), {.tp = 1, .ep = 1});
  CHECK(plain.expert_dtype == Dtype::bf16);
  CHECK(plain.num_layers == 2);
  CHECK_THROWS_WITH_AS(GptOssConfig::from_hf(parse_hf_config(R"({"hidden_size": 2880})", "x.json"), {.tp = 1, .ep = 1}),
                       "x.json: missing key 'num_hidden_layers'", DataError);
}

TEST_CASE("GptOss: shipped config.json files agree with the presets") {
  CHECK(same(shipped("gpt_oss_120b.json", 1, 1), deploy(gpt_oss_120b)));
  CHECK(same(shipped("gpt_oss_20b.json", 1, 1), deploy(gpt_oss_20b)));
  CHECK(same(shipped("gpt_oss_20b.json", 2, 8), deploy(gpt_oss_20b, {.tp = 2, .ep = 8})));
}

TEST_CASE("GptOss: weights per GPU match the published checkpoints; KV bytes per token") {
  // The mxfp4 checkpoints: gpt-oss-120b 65.3 GB, gpt-oss-20b 13.8 GB (biases left out here).
  CHECK(GptOss<GptOssConfig>(deploy(gpt_oss_120b)).weight_bytes_per_gpu() == doctest::Approx(65.3e9).epsilon(0.01));
  CHECK(GptOss<GptOssConfig>(deploy(gpt_oss_20b)).weight_bytes_per_gpu() == doctest::Approx(13.8e9).epsilon(0.01));
  const GptOss<GptOssConfig> ep8(deploy(gpt_oss_120b, {.tp = 1, .ep = 8}));
  const double expert = 3.0 * 2880 * 2880 * 4.25 / 8;  // one mxfp4 expert of one layer
  CHECK(GptOss<GptOssConfig>(deploy(gpt_oss_120b)).weight_bytes_per_gpu() - ep8.weight_bytes_per_gpu() ==
        doctest::Approx(36 * 112 * expert));
  CHECK(ep8.kv_bytes_per_token() == 2.0 * 8 * 64 * 2 * 18);  // the 18 full-attention layers hold every token
}

TEST_CASE("GptOss with TP experts (ep 1 over tp 4): one attention group, experts split by width; tp 1 is EP at ep 1") {
  constexpr GptOssConfig sharded = deploy(gpt_oss_120b, {.tp = 4, .ep = 1});
  using TpExperts = GptOss<GptOssConfig, worklets::ExpertGrain::tp>;
  static_assert(std::is_same_v<GptOss<Fixed<sharded>>, GptOss<Fixed<sharded>, worklets::ExpertGrain::tp>>);
  arch_test::check_tp_experts<GptOss<Fixed<sharded>>, TpExperts, GptOss<GptOssConfig>>(
      sharded, deploy(gpt_oss_120b), {"model.layer.sliding.moe", "model.layer.full.moe"});
  // A quarter of every (mxfp4) expert per GPU holds what ep 4 holds.
  const GptOss<GptOssConfig> ep4(deploy(gpt_oss_120b, {.tp = 4, .ep = 4}));
  CHECK(TpExperts(sharded).weight_bytes_per_gpu() == ep4.weight_bytes_per_gpu());
  CHECK(TpExperts(sharded).kv_bytes_per_token_per_gpu() == ep4.kv_bytes_per_token_per_gpu());
  GptOssConfig odd = sharded;
  odd.moe_intermediate = 2882;
  CHECK_THROWS_WITH_AS(TpExperts{odd}, "tp 4 does not divide moe_intermediate 2882", ConfigError);
}
