#include <doctest/doctest.h>

#include <array>
#include <map>
#include <string>
#include <utility>
#include <span>
#include <vector>

#include "costdsl/costdsl.hpp"
#include "costdsl/archs/llama3.hpp"
#include "../core/alloc_counter.hpp"

#include "common.hpp"
#include "feed_law.hpp"

using namespace costdsl;
using namespace costdsl::archs;

namespace {
using arch_test::Batch;
using arch_test::roofline_h200;
}  // namespace

TEST_CASE("attention op: append tokens, chunk fan-in and decode collapse (the 643 example)") {
  const std::vector<ops::PrefillChunk> chunks{{0, 512}, {1024, 128}};
  const std::vector<std::uint32_t> decodes{100, 200, 300};
  const ops::AttentionWork w = ops::collapse({chunks, decodes});
  CHECK(w.append_tokens == 643);
  CHECK(w.decode_count == 3);
  CHECK(w.decode_total_kv == 600);
  CHECK(w.prefill.size() == 2);
  // All chunks run in one batched launch (issue 14): the slot times the kernel once on the
  // equivalent uniform batch: 2 requests of the mean append (640 / 2 = 320 tokens) whose
  // prefix keeps the total causal work (512·256 + 128·(1024 + 64) = 270,336 pairs →
  // 270,336 / (2·320) − 160 = 262.4 → 262); its work is the exact sum of the chunks'.
  const Timing& t = roofline_h200();
  const ops::ChunkedPrefill<kernels::AttnPrefill> prefill{Kernel<kernels::AttnPrefill>(t, {Dtype::bf16, 32, 8, 128, 0})};
  const auto u = ops::ChunkedPrefill<kernels::AttnPrefill>::uniform(chunks);
  CHECK(u.batch == 2);
  CHECK(u.append == 320);
  CHECK(u.prefix == 262);
  const Metrics both = prefill.eval(chunks);
  const Metrics a = prefill.kernel.eval({1, 0, 512}), b = prefill.kernel.eval({1, 1024, 128});
  CHECK(both.time_s == prefill.kernel.eval(u).time_s);
  CHECK(both.time_s < a.time_s + b.time_s);  // one launch, not two
  CHECK(both.flops == a.flops + b.flops);
  CHECK(both.bytes == a.bytes + b.bytes);
  // Identical chunks are exactly that batch.
  const std::vector<ops::PrefillChunk> same{{0, 256}, {0, 256}, {0, 256}};
  CHECK(prefill.eval(same) == prefill.kernel.eval({3, 0, 256}));
  // An empty phase pushes zero with no flags.
  CHECK(prefill.eval({}) == Metrics{});
  const auto tree = ops::Attention::build(t, {Dtype::bf16, Dtype::bf16, 32, 8, 128});
  std::array<Metrics, 3> row{};
  evaluate(tree, ops::Attention::inputs(ops::collapse({chunks, {}})), row);
  CHECK(row[2] == Metrics{});  // no decodes
  CHECK(row[1].time_s > 0);
}

TEST_CASE("Llama-3-8B at tp 4 reproduces the reference shapes") {
  using Attn = worklets::AttnBlockTp<Fixed<deploy(llama3_8b, {.tp = 4})>>;
  constexpr auto r = Attn::resolve_config(Fixed<deploy(llama3_8b, {.tp = 4})>{});
  static_assert(r.qkv_n.value() == 1536);
  static_assert(r.o_proj_k.value() == 1024);
  static_assert(decltype(r.has_allreduce)::value);
  const nlohmann::json j = to_json(make_manifest(Attn(Fixed<deploy(llama3_8b, {.tp = 4})>{}).build(roofline_h200())));
  REQUIRE(j["slots"].size() == 8);
  CHECK(j["slots"][1]["name"] == "attn.qkv_proj");
  CHECK(j["slots"][1]["config"]["n"]["value"] == 1536);
  CHECK(j["slots"][1]["config"]["n"]["formula"] == "(num_qo_heads/tp+2*num_kv_heads/tp)*head_dim");
  CHECK(j["slots"][6]["config"]["k"]["value"] == 1024);
  CHECK(j["slots"][7]["name"] == "attn.tp_allreduce");
}

TEST_CASE("tp 16 on 8 KV heads is rejected at run time with the rule and values") {
  CHECK_THROWS_WITH_AS(Llama3<Llama3Config>(deploy(llama3_8b, {.tp = 16})),
                       "tp may not exceed num_kv_heads (KV heads are not replicated): tp 16 exceeds num_kv_heads 8",
                       ConfigError);
  CHECK_THROWS_WITH_AS(Llama3<Llama3Config>(deploy(llama3_8b, {.tp = 3})), "tp 3 does not divide num_qo_heads 32",
                       ConfigError);
  CHECK_THROWS_AS(Llama3<Llama3Config>(deploy(llama3_8b, {.tp = 0})), ConfigError);
}

TEST_CASE("a dense frame refuses the expert degrees of the one Parallelism every frame takes") {
  CHECK_THROWS_WITH_AS(Llama3<Llama3Config>(deploy(llama3_8b, {.tp = 2, .ep = 2})),
                       "a dense model has no experts to split (ep 1): ep 2 exceeds max_ep 1", ConfigError);
  CHECK_THROWS_WITH_AS(Llama3<Llama3Config>(deploy(llama3_8b, {.moe_tp = 2})),
                       "a dense model has no experts to split (moe_tp 1): moe_tp 2 exceeds max_moe_tp 1", ConfigError);
}

TEST_CASE("tp 1 degenerates exactly to the local shape with no collective slot") {
  const auto tree1 = Llama3<Fixed<deploy(llama3_8b)>>().build(roofline_h200());
  const auto tree2 = Llama3<Fixed<deploy(llama3_8b, {.tp = 2})>>().build(roofline_h200());
  static_assert(n_slots<decltype(tree1)> == 14);  // embed 1 + attn 7 + mlp 4 + lm_head 2
  static_assert(n_slots<decltype(tree2)> == 18);  // + two all-reduces a layer, the embedding's and the lm_head's collectives
  const nlohmann::json j = to_json(make_manifest(tree1));
  for (const auto& s : j["slots"]) CHECK(s["kind"] != "all_reduce");
  CHECK(j["slots"][2]["config"]["n"]["value"] == (32 + 2 * 8) * 128);  // per-rank == full
  // A run-time tp of 1 keeps the slot (fixed shape) but it costs nothing.
  const Llama3<Llama3Config> rt(deploy(llama3_8b));
  const auto rtree = rt.build(roofline_h200());
  static_assert(n_slots<decltype(rtree)> == 18);
  Batch b{{{0, 1024}}, {}};
  std::array<Metrics, 18> row{};
  evaluate(rtree, rt.inputs(b.it()), row);
  CHECK(row[1] == Metrics{});   // embed.tp_allreduce
  CHECK(row[9] == Metrics{});   // attn.tp_allreduce
  CHECK(row[14] == Metrics{});  // mlp.tp_allreduce
  CHECK(row[17] == Metrics{});  // lm_head.tp_allgather
}

TEST_CASE("static and run-time forms give identical totals and manifests") {
  const Timing& t = roofline_h200();
  for (const Batch& b : {Batch{{{0, 4096}}, std::vector<std::uint32_t>(64, 2048)}, Batch{{}, {1, 2, 3}},
                         Batch{{{1024, 128}, {0, 512}}, {4096}}}) {
    const Llama3<Fixed<deploy(llama3_70b, {.tp = 8})>> s;
    const Llama3<Llama3Config> r(deploy(llama3_70b, {.tp = 8}));
    const auto st = s.build(t);
    const auto rt = r.build(t);
    CHECK(evaluate(st, s.inputs(b.it())) == evaluate(rt, r.inputs(b.it())));
    CHECK(to_json(make_manifest(st)) == to_json(make_manifest(rt)));
  }
}

TEST_CASE("slot count is independent of the batch; mixed batches charge the spine once") {
  const Timing& t = roofline_h200();
  const Llama3<Fixed<deploy(llama3_8b)>> arch;
  const auto tree = arch.build(t);
  using Tree = decltype(tree);
  std::array<Metrics, n_slots<Tree>> mixed{}, pre{}, dec{};
  const Batch prefill_only{{{0, 512}}, {}}, decode_only{{}, std::vector<std::uint32_t>(32, 1024)};
  const Batch both{{{0, 512}}, std::vector<std::uint32_t>(32, 1024)};
  const Metrics m = evaluate<Quantities::with_energy>(tree, arch.inputs(both.it()), mixed);  // as Kernel::eval
  const Metrics p = evaluate(tree, arch.inputs(prefill_only.it()), pre);
  const Metrics d = evaluate(tree, arch.inputs(decode_only.it()), dec);
  // The qkv projection runs once over 512 + 32 rows, not once per phase.
  const Kernel<kernels::Gemm> qkv(t, {Dtype::bf16, (32 + 16) * 128, 4096});
  CHECK(mixed[2] == qkv.eval({544}));
  CHECK(mixed[2].flops == pre[2].flops + dec[2].flops);  // work is linear in rows...
  CHECK(m.time_s < p.time_s + d.time_s);                  // ...but launches and weight reads are shared
}

TEST_CASE("KV bytes per token and weights per GPU") {
  const Llama3<Fixed<deploy(llama3_8b)>> a8;
  CHECK(a8.kv_bytes_per_token() == 2.0 * 8 * 128 * 2 * 32);
  const Llama3<Fixed<deploy(llama3_70b, {.tp = 8})>> a70;
  CHECK(a70.kv_bytes_per_token_per_gpu() == 2.0 * 8 * 128 * 2 * 80 / 8);
  // Llama-3-70B has about 70.6 B parameters; at tp 8 each GPU holds an eighth of every one,
  // the vocabulary-parallel embedding and lm_head included.
  CHECK(a70.weight_bytes_per_gpu() / 2 == doctest::Approx(70.55e9 / 8).epsilon(0.01));
  // From tp 4 to tp 8 everything halves but the replicated norms (2 a layer and the final
  // one, bf16): the embedding's and lm_head's 128256 rows split 4 and 8 ways exactly.
  const Llama3<Fixed<deploy(llama3_70b, {.tp = 4})>> a70_tp4;
  CHECK(a70_tp4.weight_bytes_per_gpu() - 2 * a70.weight_bytes_per_gpu() ==
        doctest::Approx(-2.0 * (80 * 2 * 8192 + 8192)));
}

TEST_CASE("shipped config.json files agree with the static presets") {
  auto load = [](const char* name, std::uint32_t tp) {
    return Llama3Config::from_hf(load_hf_config(default_data_dir() / "models" / name), {.tp = tp});
  };
  auto same = [](const Llama3Config& a, const Llama3Config& b) {
    return a.hidden == b.hidden && a.num_qo_heads == b.num_qo_heads && a.num_kv_heads == b.num_kv_heads &&
           a.head_dim == b.head_dim && a.intermediate == b.intermediate && a.vocab == b.vocab &&
           a.num_layers == b.num_layers && a.tp == b.tp && a.dtype == b.dtype && a.kv_dtype == b.kv_dtype &&
           a.gemm_dtype == b.gemm_dtype;
  };
  CHECK(same(load("llama3_8b.json", 1), deploy(llama3_8b)));
  CHECK(same(load("llama3_70b.json", 8), deploy(llama3_70b, {.tp = 8})));
  CHECK(same(load("llama3_405b.json", 8), deploy(llama3_405b, {.tp = 8})));
}

TEST_CASE("a bad config.json names the file, key, value and rule") {
  CHECK_THROWS_WITH_AS(Llama3Config::from_hf(parse_hf_config(R"({"hidden_size": 4096})", "x.json"), {.tp = 1}),
                       "x.json: missing key 'num_attention_heads'", DataError);
  CHECK_THROWS_WITH_AS(
      Llama3Config::from_hf(parse_hf_config(R"({"hidden_size": "4096", "num_attention_heads": 32})", "x.json"), {.tp = 1}),
      "x.json: 'hidden_size' must be an integer, got \"4096\"", DataError);
  CHECK_THROWS_WITH_AS(
      Llama3Config::from_hf(parse_hf_config(R"({"hidden_size": -1, "num_attention_heads": 32})", "x.json"), {.tp = 1}),
      "x.json: 'hidden_size' is -1; it must be at least 1", DataError);
  CHECK_THROWS_AS(parse_hf_config("{not json", "x.json"), DataError);
}

TEST_CASE("Llama-3-70B at tp 8 on H200: 64 decodes at 2048 KV take a few ms to a few tens of ms") {
  const Llama3<Fixed<deploy(llama3_70b, {.tp = 8})>> arch;
  const auto tree = arch.build(roofline_h200());
  const Batch b{{}, std::vector<std::uint32_t>(64, 2048)};
  const Metrics m = evaluate(tree, arch.inputs(b.it()));
  CHECK(m.time_ms() > 2);
  CHECK(m.time_ms() < 40);
  CHECK(has(m.coverage, Coverage::analytic));
}

TEST_CASE("an iteration of Llama-3-70B allocates nothing, in either form (issue 7's hot path)") {
  const Timing& t = roofline_h200();
  const Llama3<Fixed<deploy(llama3_70b, {.tp = 8})>> s;
  const Llama3<Llama3Config> r(deploy(llama3_70b, {.tp = 8}));
  const auto st = s.build(t);
  const auto rt = r.build(t);
  const Batch b{{{0, 4096}}, std::vector<std::uint32_t>(64, 2048)};
  std::array<Metrics, n_slots<decltype(st)>> row{};
  Metrics total{};
  const long before = costdsl::testing::allocation_count();
  for (int i = 0; i < 1000; ++i) {
    total = evaluate(st, s.inputs(b.it()));
    total = evaluate(rt, r.inputs(b.it()), std::span<Metrics, n_slots<decltype(rt)>>(row));
  }
  CHECK(costdsl::testing::allocation_count() == before);
  CHECK(total.time_s > 0);
}

TEST_CASE("energy only when asked: the default pass is the same iteration without it") {
  const Llama3<Fixed<deploy(llama3_70b, {.tp = 8})>> arch;
  const auto tree = arch.build(roofline_h200());
  const Batch b{{{0, 4096}}, std::vector<std::uint32_t>(64, 2048)};
  std::array<Metrics, n_slots<decltype(tree)>> row{}, row_energy{};
  const Metrics m = evaluate(tree, arch.inputs(b.it()), row);
  const Metrics e = evaluate<Quantities::with_energy>(tree, arch.inputs(b.it()), row_energy);
  CHECK(m.energy_j == 0);
  CHECK(e.energy_j > 0);
  Metrics without = e;
  without.energy_j = 0;
  CHECK(m == without);
  for (std::size_t i = 0; i < row.size(); ++i) {
    CHECK(row[i].time_s == row_energy[i].time_s);
    CHECK(row[i].flops == row_energy[i].flops);
    CHECK(row[i].bytes == row_energy[i].bytes);
    CHECK(row[i].coverage == row_energy[i].coverage);
    CHECK(row[i].energy_j == 0);
  }
  CHECK(evaluate<Quantities::with_energy>(tree, arch.inputs(b.it())) == e);
}

// On measured tables (H100: most leaves bound to one table, the GEMMs blended or exact, the
// rest on the roofline) the time-and-work pass takes each leaf's one-table short path where
// binding found one; it must answer slot by slot what the general path (the energy pass) does.
TEST_CASE("on measured tables the default pass is the energy pass without energy, slot by slot") {
  const Llama3<Fixed<deploy(llama3_70b, {.tp = 8})>> arch;
  const auto tree = arch.build(load_timing("h100_sxm"));
  for (const Batch& b : {Batch{{{0, 4096}}, std::vector<std::uint32_t>(64, 2048)}, Batch{{}, {1}},
                         Batch{{{100, 37}, {0, 9000}}, {7, 70000, 3}}, Batch{{{0, 200000}}, {}}}) {
    arch_test::check_shared_slots_law(tree, arch.inputs(b.it()));
    std::array<Metrics, n_slots<decltype(tree)>> row{}, row_energy{};
    const Metrics m = evaluate(tree, arch.inputs(b.it()), row);
    evaluate<Quantities::with_energy>(tree, arch.inputs(b.it()), row_energy);
    CHECK(m.time_s > 0);
    for (std::size_t i = 0; i < row.size(); ++i) {
      CAPTURE(i);
      CHECK(row[i].time_s == row_energy[i].time_s);
      CHECK(row[i].flops == row_energy[i].flops);
      CHECK(row[i].bytes == row_energy[i].bytes);
      CHECK(row[i].coverage == row_energy[i].coverage);
      CHECK(row[i].backend == row_energy[i].backend);
    }
  }
}

TEST_CASE("evaluate_many equals evaluate() per iteration, allocating nothing") {
  const Timing& t = roofline_h200();
  const Llama3<Fixed<deploy(llama3_70b, {.tp = 8})>> arch;
  const auto tree = arch.build(t);
  std::vector<Batch> batches;
  for (std::uint32_t i = 0; i < 37; ++i)  // more than two blocks, the last one partial
    batches.push_back(Batch{i % 3 == 0 ? std::vector<ops::PrefillChunk>{{100 * i, 64 + 32 * i}}
                                       : std::vector<ops::PrefillChunk>{},
                            std::vector<std::uint32_t>(1 + i % 7, 512 + 97 * i)});
  std::vector<decltype(arch.inputs(batches[0].it()))> in;
  for (const Batch& b : batches) in.push_back(arch.inputs(b.it()));
  std::vector<Metrics> out(in.size()), with_energy(in.size());
  const long before = costdsl::testing::allocation_count();
  evaluate_many(tree, std::span(in), std::span(out));
  evaluate_many<Quantities::with_energy>(tree, std::span(in), std::span(with_energy));
  CHECK(costdsl::testing::allocation_count() == before);
  for (std::size_t i = 0; i < in.size(); ++i) {
    CHECK(out[i] == evaluate(tree, in[i]));
    CHECK(with_energy[i] == evaluate<Quantities::with_energy>(tree, in[i]));
  }
  std::vector<Metrics> wrong(in.size() - 1);
  CHECK_THROWS_AS(evaluate_many(tree, std::span(in), std::span(wrong)), InputError);
}

TEST_CASE("evaluate_many shares the prefill leaf of a Llama sweep and still equals evaluate()") {
  const Timing& t = roofline_h200();
  const Llama3<Fixed<deploy(llama3_70b, {.tp = 8})>> arch;
  const auto tree = arch.build(t);
  // One chunk list shared by the whole sweep (the same span in every input), decodes 1..37
  // at two KV lengths: every other leaf's input changes, the prefill attention's does not.
  const std::vector<ops::PrefillChunk> prefill{{512, 3000}};
  std::vector<std::vector<std::uint32_t>> decode;
  for (std::uint32_t i = 1; i <= 37; ++i) decode.emplace_back(i, i % 2 == 0 ? 2048 : 777);
  std::vector<decltype(arch.inputs(ops::AttentionBatch{}))> in;
  for (const auto& d : decode) in.push_back(arch.inputs(ops::AttentionBatch{prefill, d}));
  std::vector<Metrics> out(in.size());
  evaluate_many<Quantities::with_energy>(tree, std::span(in), std::span(out));
  for (std::size_t i = 0; i < in.size(); ++i) {
    CAPTURE(i);
    CHECK(out[i] == evaluate<Quantities::with_energy>(tree, in[i]));
  }
}

TEST_CASE("fp8 producers: each fused quantize takes one projection's quantize kernel out, for per-tensor fp8 only") {
  const Timing& t = roofline_h200();
  const Quantization own{Dtype::fp8, Dtype::fp8, Dtype::fp8};
  const auto fused = [&](bool norm, bool attention, bool activation) {
    Quantization::Choice c;
    c.fp8_producers = Quantization::Fp8Producers{norm, attention, activation};
    return own.with(c);
  };
  const auto total = [&](const Quantization& q, const Batch& b) {
    const Llama3<Llama3Config> r(deploy(llama3_70b, {.tp = 8}, q));
    return evaluate(r.build(t), r.inputs(b.it())).time_s;
  };
  const Roofline& rf = *t.roofline();
  for (const auto& [b, m] : {std::pair{Batch{{}, std::vector<std::uint32_t>(64, 2048)}, 64.0},
                             std::pair{Batch{{{0, 4096}}, {}}, 4096.0}}) {
    // Each producer spares its projection's quantize, on every layer: (m, k) of qkv and
    // up/gate (hidden 8192), o_proj (64 heads / 8 · 128), down_proj (28672 / 8).
    const auto spared = [&](double k) { return 80 * rf.memory_bound(0, m * k * 3, ElementwiseKind::quantize).time_s; };
    const double base = total(own, b);
    CHECK(base - total(fused(true, false, false), b) ==
          doctest::Approx(2 * spared(8192)).epsilon(1e-9));
    CHECK(base - total(fused(false, true, false), b) ==
          doctest::Approx(spared(1024)).epsilon(1e-9));
    CHECK(base - total(fused(false, false, true), b) ==
          doctest::Approx(spared(3584)).epsilon(1e-9));
  }
  // The manifest says which GEMMs take fp8 input.
  const Llama3<Llama3Config> arch(deploy(llama3_70b, {.tp = 8}, fused(true, true, false)));
  const nlohmann::json j = to_json(make_manifest(arch.build(t)));
  std::map<std::string, std::string> input;
  for (const auto& s : j["slots"])
    if (s["kind"] == "gemm") input[s["name"].get<std::string>()] = s["config"]["input_dtype"];
  CHECK(input.at("model.layer.attn.qkv_proj") == "fp8");
  CHECK(input.at("model.layer.attn.o_proj") == "fp8");
  CHECK(input.at("model.layer.mlp.up_gate_proj") == "fp8");
  CHECK(input.at("model.layer.mlp.down_proj") == "bf16");
  CHECK(input.at("model.lm_head.proj") == "bf16");
  // A fused quantize writes per-tensor fp8 values: no other format's.
  CHECK_THROWS_WITH_AS((Quantization{Dtype::fp4, Dtype::fp4, Dtype::fp8, true}.check()),
                       doctest::Contains("fp8 producers (norm): a quantize fused into the kernel before a projection is "
                                         "modelled for per-tensor fp8 GEMMs with static scales (gemm=fp8), not gemm=fp4"),
                       InputError);
  // ... whoever builds the deployment: a library form is refused when its tree is built.
  CHECK_THROWS_AS(Llama3<Llama3Config>(deploy(llama3_70b, {.tp = 8}, Quantization{Dtype::fp4, Dtype::fp4, Dtype::fp8, true}))
                      .build(t),
                  InputError);
  CHECK(parse_fp8_producers("norm,activation") == Quantization::Fp8Producers{true, false, true});
  CHECK(parse_fp8_producers("none") == Quantization::Fp8Producers{});
  CHECK_THROWS_WITH_AS(parse_fp8_producers("rope"), doctest::Contains("--fp8-from 'rope': expected"), InputError);
  CHECK(fused(true, true, true).text() ==
        "gemm=fp8 moe=fp8 kv=fp8 fp8-from=norm,attention,activation");
}
