#include <doctest/doctest.h>

#include <array>
#include <string>
#include <vector>

#include "costdsl/costdsl.hpp"
#include "costdsl/archs/llama3.hpp"
#include "costdsl/archs/qwen3.hpp"

#include "common.hpp"

using namespace costdsl;
using namespace costdsl::archs;

namespace {
using arch_test::Batch;
using arch_test::roofline_h200;
}  // namespace

TEST_CASE("Qwen3 dense: Llama's slots plus q_norm and k_norm after qkv_proj, in build order") {
  using Tree = decltype(Qwen3<Fixed<deploy(qwen3_8b, {.tp = 4})>>().build(roofline_h200()));
  static_assert(n_slots<Tree> == 20);  // embed 2 + attn 10 (q_norm, k_norm, tp_allreduce) + mlp 5 + lm_head 3
  static_assert(n_slots<decltype(Qwen3<Fixed<deploy(qwen3_8b)>>().build(roofline_h200()))> == 16);  // tp 1: no all-reduces
  const std::vector<std::string> attn{"input_norm", "qkv_proj", "q_norm", "k_norm", "rope", "kv_cache_append",
                                      "prefill", "decode", "o_proj", "tp_allreduce"};
  for (std::size_t i = 0; i < attn.size(); ++i)
    CHECK(std::string(slot_paths<Tree>[2 + i]) == "model.layer.attn." + attn[i]);
  CHECK(std::string(slot_paths<Tree>[12]) == "model.layer.mlp.post_norm");
}

TEST_CASE("Qwen3-8B at tp 4: the q/k norm leaves, checked by hand") {
  const Qwen3<Fixed<deploy(qwen3_8b, {.tp = 4})>> arch;
  const auto tree = arch.build(roofline_h200());
  std::array<Metrics, n_slots<decltype(tree)>> row{};
  const Batch b{{{0, 1000}}, std::vector<std::uint32_t>(24, 2048)};  // 1024 rows through the projections
  evaluate(tree, arch.inputs(b.it()), row);
  // One RMSNorm row per token and head over head_dim 128 (bf16): q has 32/4 = 8 heads per
  // rank, k 8/4 = 2. Bytes = 2 B · (read + write 1024·heads·128 + the 128 weights).
  CHECK(row[4].bytes == 2.0 * (2.0 * 1024 * 8 * 128 + 128));  // q_norm
  CHECK(row[5].bytes == 2.0 * (2.0 * 1024 * 2 * 128 + 128));  // k_norm
  CHECK(row[4].flops == 4.0 * 1024 * 8 * 128);
  const nlohmann::json j = to_json(make_manifest(tree));
  CHECK(j["slots"][4]["config"]["hidden"]["value"] == 128);  // the norm runs over head_dim
  CHECK(j["slots"][3]["config"]["n"]["value"] == (8 + 2 * 2) * 128);
}

TEST_CASE("Qwen3 costs exactly Llama's layer plus the q/k norm leaves") {
  const Timing& t = roofline_h200();
  const Qwen3Config q = deploy(qwen3_8b, {.tp = 2});
  const Llama3Config same{{.hidden = q.hidden, .num_qo_heads = q.num_qo_heads, .num_kv_heads = q.num_kv_heads,
                           .head_dim = q.head_dim, .intermediate = q.intermediate, .vocab = q.vocab,
                           .num_layers = q.num_layers, .dtype = q.dtype},
                          q.parallelism(), q.quantization()};
  const Qwen3<Qwen3Config> qwen(q);
  const Llama3<Llama3Config> llama(same);
  const Batch b{{{0, 2048}}, std::vector<std::uint32_t>(32, 4096)};
  const auto qt = qwen.build(t);
  std::array<Metrics, n_slots<decltype(qt)>> row{};
  const Metrics mq = evaluate(qt, qwen.inputs(b.it()), row);
  const Metrics ml = evaluate(llama.build(t), llama.inputs(b.it()));
  const double layers = q.num_layers;
  CHECK(mq.flops - ml.flops == doctest::Approx(layers * (row[4].flops + row[5].flops)));
  CHECK(mq.bytes - ml.bytes == doctest::Approx(layers * (row[4].bytes + row[5].bytes)));
  CHECK(mq.time_s - ml.time_s == doctest::Approx(layers * (row[4].time_s + row[5].time_s)));
}

TEST_CASE("Qwen3: static and run-time forms give bitwise identical totals and manifests") {
  const Timing& t = roofline_h200();
  const Qwen3<Fixed<deploy(qwen3_32b, {.tp = 8})>> s;
  const Qwen3<Qwen3Config> r(deploy(qwen3_32b, {.tp = 8}));
  const auto st = s.build(t);
  const auto rt = r.build(t);
  static_assert(n_slots<decltype(st)> == n_slots<decltype(rt)>);
  for (const Batch& b : {Batch{{{0, 4096}}, std::vector<std::uint32_t>(64, 2048)}, Batch{{}, {1, 2, 3}},
                         Batch{{{1024, 128}, {0, 512}}, {4096}}}) {
    std::array<Metrics, n_slots<decltype(st)>> srow{}, rrow{};
    CHECK(evaluate(st, s.inputs(b.it()), srow) == evaluate(rt, r.inputs(b.it()), rrow));
    CHECK(srow == rrow);
  }
  CHECK(to_json(make_manifest(st)) == to_json(make_manifest(rt)));
  CHECK(s.weight_bytes_per_gpu() == r.weight_bytes_per_gpu());
}

TEST_CASE("Qwen3: degrees the heads do not split into are run-time errors naming rule and values") {
  CHECK_THROWS_WITH_AS(Qwen3<Qwen3Config>(deploy(qwen3_8b, {.tp = 16})),
                       "tp may not exceed num_kv_heads (KV heads are not replicated): tp 16 exceeds num_kv_heads 8",
                       ConfigError);
  CHECK_THROWS_WITH_AS(Qwen3<Qwen3Config>(deploy(qwen3_32b, {.tp = 3})), "tp 3 does not divide num_qo_heads 64",
                       ConfigError);
  Qwen3Config odd = deploy(qwen3_8b, {.tp = 8});
  odd.intermediate = 12300;
  CHECK_THROWS_WITH_AS(Qwen3<Qwen3Config>{odd}, "tp 8 does not divide intermediate 12300", ConfigError);
  CHECK_THROWS_AS(Qwen3<Qwen3Config>(deploy(qwen3_8b, {.tp = 0})), ConfigError);
}

TEST_CASE("Qwen3: shipped config.json files agree with the presets; head_dim is required") {
  auto load = [](const char* name, std::uint32_t tp) {
    return Qwen3Config::from_hf(load_hf_config(default_data_dir() / "models" / name), {.tp = tp});
  };
  auto same = [](const Qwen3Config& a, const Qwen3Config& b) {
    return a.hidden == b.hidden && a.num_qo_heads == b.num_qo_heads && a.num_kv_heads == b.num_kv_heads &&
           a.head_dim == b.head_dim && a.intermediate == b.intermediate && a.vocab == b.vocab &&
           a.num_layers == b.num_layers && a.tp == b.tp && a.dtype == b.dtype && a.kv_dtype == b.kv_dtype &&
           a.gemm_dtype == b.gemm_dtype;
  };
  CHECK(same(load("qwen3_8b.json", 1), deploy(qwen3_8b)));
  CHECK(same(load("qwen3_32b.json", 4), deploy(qwen3_32b, {.tp = 4})));
  CHECK_THROWS_WITH_AS(
      Qwen3Config::from_hf(parse_hf_config(R"({"hidden_size": 5120, "num_attention_heads": 64})", "x.json"), {.tp = 1}),
      "x.json: missing key 'head_dim'", DataError);
}

TEST_CASE("Qwen3: KV bytes per token and weights per GPU") {
  const Qwen3<Fixed<deploy(qwen3_8b)>> a8;
  CHECK(a8.kv_bytes_per_token() == 2.0 * 8 * 128 * 2 * 36);
  // Qwen3-8B has 8.19 B parameters (embed and lm_head untied, 151936 × 4096 each).
  CHECK(a8.weight_bytes_per_gpu() / 2 == doctest::Approx(8.19e9).epsilon(0.01));
  const Qwen3<Qwen3Config> a32(deploy(qwen3_32b));
  CHECK(a32.weight_bytes_per_gpu() / 2 == doctest::Approx(32.8e9).epsilon(0.01));
}

TEST_CASE("Qwen3 hptp: hp 1 is the tp tree; hp 2 keeps the q/k norm, splits the KV and halves decode attention") {
  const Timing& t = roofline_h200();
  const Batch mixed{{{0, 2048}}, std::vector<std::uint32_t>(32, 4096)};
  const Batch decode{{}, std::vector<std::uint32_t>(16, 131072)};
  // Run-time hp 1: the hptp tree's hp slots push zero, the total is the tp tree's bit for bit.
  const Qwen3<Qwen3Config> tp(deploy(qwen3_32b, {.tp = 8}));
  const Qwen3<Qwen3Config, worklets::AttnGrain::hptp> hp1(deploy(qwen3_32b, {.tp = 8}));
  for (const Batch* b : {&mixed, &decode})
    CHECK(evaluate(tp.build(t), tp.inputs(b->it())) == evaluate(hp1.build(t), hp1.inputs(b->it())));
  // Static hp 2 picks the hptp grain: q/k norm between qkv_proj and rope, the hp exchange after decode.
  using Tree = decltype(Qwen3<Fixed<deploy(qwen3_32b, {.tp = 8, .hp = 2})>>().build(t));
  const std::vector<std::string> attn{"input_norm", "qkv_proj",      "q_norm",     "k_norm", "rope",
                                      "kv_cache_append", "prefill", "decode", "hp_all_to_all", "hp_combine",
                                      "o_proj",     "tp_allreduce"};
  for (std::size_t i = 0; i < attn.size(); ++i)
    CHECK(std::string(slot_paths<Tree>[2 + i]) == "model.layer.attn." + attn[i]);
  const Qwen3<Fixed<deploy(qwen3_32b, {.tp = 8})>> s1;
  const Qwen3<Fixed<deploy(qwen3_32b, {.tp = 8, .hp = 2})>> s2;
  const Qwen3<Qwen3Config, worklets::AttnGrain::hptp> r2(deploy(qwen3_32b, {.tp = 8, .hp = 2}));
  const auto t1 = s1.build(t);
  const auto t2 = s2.build(t);
  CHECK(evaluate(t2, s2.inputs(decode.it())) == evaluate(r2.build(t), r2.inputs(decode.it())));
  std::array<Metrics, n_slots<decltype(t1)>> row1{};
  std::array<Metrics, n_slots<decltype(t2)>> row2{};
  evaluate(t1, s1.inputs(decode.it()), row1);
  evaluate(t2, s2.inputs(decode.it()), row2);
  const double d1 = row1[2 + 7].time_s, d2 = row2[2 + 7].time_s;  // model.layer.attn.decode
  CHECK(d2 / d1 == doctest::Approx(0.5).epsilon(0.05));
  CHECK(s2.kv_bytes_per_token_per_gpu() == s1.kv_bytes_per_token_per_gpu() / 2);
  // FFN over all 16 GPUs: 16 divides 25600; hp 3 × tp 8 does not divide the query heads.
  CHECK_THROWS_WITH_AS((Qwen3<Qwen3Config, worklets::AttnGrain::hptp>(deploy(qwen3_32b, {.tp = 8, .hp = 3}))),
                       "hp*tp 24 does not divide num_qo_heads 64", ConfigError);
}
