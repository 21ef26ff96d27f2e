// KV-parallel decode for MLA (issue 20): mla_block_hp and DeepSeek-V3's hp grain. The hp = 1
// law (the tp tree, leaf for leaf and bit for bit), the static and run-time forms at hp 2
// and 4, the all-to-all and merge sizes by hand, KV per GPU, long-context decode attention
// shrinking as 1/hp, and the rejections.
#include <doctest/doctest.h>

#include <array>
#include <map>
#include <string>
#include <variant>
#include <vector>

#include "costdsl/costdsl.hpp"
#include "costdsl/archs/deepseek_v3.hpp"

#include "feed_law.hpp"

#include "common.hpp"

using namespace costdsl;
using namespace costdsl::archs;

namespace {
using arch_test::Batch;
using arch_test::roofline_h200;
using arch_test::kv_parallel_batches;
using arch_test::slot_identity;

using Hp = DeepseekV3<DeepseekV3Config, AttnGrain::hptp>;

// A manifest's slots less the collectives over one GPU: a static tp 1 drops the embedding's
// all-reduce and the lm_head's all-gather, a run-time tp 1 keeps them gated (zero).
nlohmann::json slots_over_gpus(const Manifest& m) {
  nlohmann::json out = nlohmann::json::array();
  const nlohmann::json j = to_json(m);
  for (const auto& s : j.at("slots")) {
    const nlohmann::json& config = s.at("config");
    const bool one_gpu = config.contains("num_gpus") && config.at("num_gpus").at("value") == 1;
    if (!one_gpu) out.push_back(s);
  }
  return out;
}

// Evaluates an arch on a whole-model batch dealt over its DP groups as the CLI deals it.
template <class Arch>
Metrics run(const Arch& arch, const Batch& b, std::span<Metrics> row = {}) {
  DpDeal deal;
  const auto tree = arch.build(roofline_h200());
  const auto in = arch.inputs(deal.deal(b.it(), arch.resolved().dp));
  if (row.empty()) return evaluate(tree, in);
  return evaluate(tree, in, std::span<Metrics, n_slots<decltype(tree)>>(row.data(), row.size()));
}

template <class Arch>
std::map<std::string, Metrics> dealt_slot_rows(const Arch& arch, const Batch& b) {
  const auto tree = arch.build(roofline_h200());
  const Manifest m = make_manifest(tree);
  std::vector<Metrics> row(m.slots.size());
  run(arch, b, row);
  std::map<std::string, Metrics> out;
  for (std::size_t i = 0; i < row.size(); ++i) out[m.slots[i].name] = row[i];
  return out;
}

// Static hp = 1: the hp grain builds the tp tree's slots (the hp slots are absent), and
// every total and slot row is bitwise the tp arch's.
template <DeepseekV3Config C>
void static_law() {
  const Timing& t = roofline_h200();
  const DeepseekV3<Fixed<C>> tp;
  const DeepseekV3<Fixed<C>, AttnGrain::hptp> hp;
  const auto tt = tp.build(t);
  const auto ht = hp.build(t);
  static_assert(n_slots<decltype(tt)> == n_slots<decltype(ht)>);
  const Manifest mt = make_manifest(tt), mh = make_manifest(ht);
  REQUIRE(mt.slots.size() == mh.slots.size());
  for (std::size_t i = 0; i < mt.slots.size(); ++i) CHECK(slot_identity(mt.slots[i]) == slot_identity(mh.slots[i]));
  CHECK(mt.tree.size() == mh.tree.size());
  for (const Batch& b : kv_parallel_batches()) {
    std::vector<Metrics> rt(mt.slots.size()), rh(mh.slots.size());
    CHECK(run(tp, b, rt) == run(hp, b, rh));
    CHECK(rt == rh);
  }
}
}  // namespace

TEST_CASE("DeepSeek-V3 hp = 1 is exactly the tp tree: static forms at ep 1 and 8") {
  static_assert(default_grain<Fixed<deploy(deepseek_v3, {.tp = 1, .ep = 8})>> == AttnGrain::tp);
  static_assert(default_grain<Fixed<deploy(deepseek_v3, {.tp = 1, .ep = 8, .hp = 2})>> == AttnGrain::hptp);
  static_law<deploy(deepseek_v3)>();
  static_law<deploy(deepseek_v3, {.tp = 1, .ep = 8})>();
}

TEST_CASE("DeepSeek-V3 hp = 1 is exactly the tp tree: run-time form, the hp slots push zero") {
  const Timing& t = roofline_h200();
  for (const DeepseekV3Config& c : {deploy(deepseek_v3), deploy(deepseek_v3, {.tp = 1, .ep = 8})}) {
    const DeepseekV3<DeepseekV3Config> tp(c);
    const Hp hp(c);
    const Manifest mt = make_manifest(tp.build(t)), mh = make_manifest(hp.build(t));
    // hp_all_to_all and hp_combine in the dense and the MoE layers' attention.
    REQUIRE(mh.slots.size() == mt.slots.size() + 4);
    std::map<std::string, std::size_t> in_tp;
    for (std::size_t i = 0; i < mt.slots.size(); ++i) in_tp[mt.slots[i].name] = i;
    for (const Batch& b : kv_parallel_batches()) {
      std::vector<Metrics> rt(mt.slots.size()), rh(mh.slots.size());
      CHECK(run(tp, b, rt) == run(hp, b, rh));
      std::size_t matched = 0;
      for (std::size_t i = 0; i < mh.slots.size(); ++i) {
        const auto it = in_tp.find(mh.slots[i].name);
        if (it == in_tp.end()) {
          CHECK(rh[i] == Metrics{});
          continue;
        }
        ++matched;
        CHECK(slot_identity(mt.slots[it->second]) == slot_identity(mh.slots[i]));
        CHECK(rt[it->second] == rh[i]);
      }
      CHECK(matched == mt.slots.size());
    }
  }
  // The default run-time form is the tp grain, hp 1 included: today's numbers.
  CHECK(DeepseekV3<DeepseekV3Config>(deploy(deepseek_v3, {.tp = 8, .ep = 8})).kv_bytes_per_token_per_gpu() ==
        DeepseekV3<DeepseekV3Config>(deploy(deepseek_v3, {.tp = 8, .ep = 8})).kv_bytes_per_token());
}

TEST_CASE("DeepSeek-V3 hp 2 and 4: the static and run-time forms agree, total and manifest") {
  const Timing& t = roofline_h200();
  const auto check = [&]<DeepseekV3Config C>() {
    const DeepseekV3<Fixed<C>> s;
    const Hp r(C);
    CHECK(s.resolved().dp == r.resolved().dp);
    CHECK(slots_over_gpus(make_manifest(s.build(t))) == slots_over_gpus(make_manifest(r.build(t))));
    for (const Batch& b : {Batch{{}, std::vector<std::uint32_t>(16, 131072)}, Batch{{}, {1, 2, 3, 33, 100}}, Batch{}})
      CHECK(run(s, b) == run(r, b));
  };
  check.template operator()<deploy(deepseek_v3, {.tp = 1, .ep = 8, .hp = 2})>();
  check.template operator()<deploy(deepseek_v3, {.tp = 1, .ep = 8, .hp = 4})>();
}

TEST_CASE("DeepSeek-V3 hp 2: inputs(it, scratch) equals inputs(it); warm, a dealt iteration allocates nothing") {
  const DeepseekV3<Fixed<deploy(deepseek_v3, {.tp = 1, .ep = 8, .hp = 2})>> s;
  const Hp r(deploy(deepseek_v3, {.tp = 1, .ep = 8, .hp = 2}));
  std::vector<std::uint32_t> decode(64, 131072);
  for (std::uint32_t i = 0; i < 16; ++i) decode.push_back(1 + i * 997);  // uneven slices, short requests
  const auto totals = arch_test::check_feed_law(s, r, roofline_h200(), {{}, decode}, {1.2});
  CHECK(totals[0] == totals[1]);
}

TEST_CASE("DeepSeek-V3 ep 8 hp 2: the slots, the exchange and merge sizes by hand, the dense MLP over the group") {
  const DeepseekV3<Fixed<deploy(deepseek_v3, {.tp = 1, .ep = 8, .hp = 2})>> arch;
  CHECK(arch.resolved().dp == 4);
  const auto tree = arch.build(roofline_h200());
  const Manifest m = make_manifest(tree);
  arch_test::check_slot_families(m);
  std::vector<std::string> attn;
  for (const SlotDescription& s : m.slots)
    if (s.name.starts_with("model.moe_layer.dp.attn.")) attn.push_back(s.name.substr(24));
  CHECK(attn == std::vector<std::string>{"input_norm", "q_a_proj", "q_a_norm", "q_b_proj", "kv_a_proj", "kv_a_norm",
                                         "rope", "kv_cache_append", "kv_b_proj", "prefill", "q_absorb", "decode",
                                         "hp_all_to_all", "hp_combine", "o_absorb", "o_proj", "tp_allreduce"});
  const nlohmann::json j = to_json(m);
  auto slot = [&](const std::string& name) {
    for (const auto& s : j["slots"])
      if (s["name"] == name) return s;
    FAIL("no slot " << name);
    return nlohmann::json{};
  };
  // Every rank absorbs and attends with all 128 heads; W_UV and o_proj take 128/2 = 64.
  CHECK(slot("model.moe_layer.dp.attn.q_absorb")["config"]["num_experts"]["value"] == 128);
  CHECK(slot("model.moe_layer.dp.attn.decode")["config"]["num_heads"]["value"] == 128);
  CHECK(slot("model.moe_layer.dp.attn.o_absorb")["config"]["num_experts"]["value"] == 64);
  CHECK(slot("model.moe_layer.dp.attn.o_proj")["config"]["k"]["value"] == 64 * 128);
  CHECK(slot("model.moe_layer.dp.attn.hp_all_to_all")["config"]["num_gpus"]["value"] == 2);
  CHECK(slot("model.moe_layer.dp.attn.hp_combine")["config"]["num_states"]["value"] == 2);
  CHECK(slot("model.moe_layer.dp.attn.hp_combine")["config"]["num_heads"]["value"] == 64);
  CHECK(slot("model.moe_layer.dp.attn.hp_combine")["config"]["head_dim"]["value"] == 512);
  CHECK(slot("model.moe_layer.dp.attn.tp_allreduce")["config"]["num_gpus"]["value"] == 2);
  CHECK(slot("model.dense_layer.dp.mlp.up_gate_proj")["config"]["n"]["value"] == 2 * 18432 / 2);

  // 8 decodes at 131,072 dealt over 4 groups: 2 per group, each rank holding 65,536 of each.
  const auto r = dealt_slot_rows(arch, Batch{{}, std::vector<std::uint32_t>(8, 131072)});
  // Message per GPU: 2 tokens × 128 heads × (512 × 2 B + one fp32 LSE) = 263,168 B; half leaves.
  CHECK(r.at("model.moe_layer.dp.attn.hp_all_to_all").bytes == 4 * 263168.0 / 2);  // 4 groups' work
  // Merge: 2 tokens × 64 heads; 2 partials read + 1 written × 512 × 2 B, 2 LSEs × 4 B; 4 groups.
  CHECK(r.at("model.moe_layer.dp.attn.hp_combine").bytes == 4 * (128.0 * 512 * 2 * 3 + 128 * 2 * 4));
  // The decode slot is one rank's launch over its slice; the work of all 8 ranks.
  const Kernel<kernels::MlaDecode> dec(roofline_h200(), kernels::MlaDecode::deepseek_v3(Dtype::bf16, 128));
  const Metrics one = dec.eval({2, 2 * 65536});
  CHECK(r.at("model.moe_layer.dp.attn.decode").time_s == one.time_s);
  CHECK(r.at("model.moe_layer.dp.attn.decode").flops == doctest::Approx(8 * one.flops));
}

TEST_CASE("DeepSeek-V3 KV per GPU divides by hp; weights per GPU shrink with the projections out") {
  const DeepseekV3<Fixed<deploy(deepseek_v3, {.tp = 1, .ep = 8})>> h1;
  const DeepseekV3<Fixed<deploy(deepseek_v3, {.tp = 1, .ep = 8, .hp = 2})>> h2;
  const DeepseekV3<Fixed<deploy(deepseek_v3, {.tp = 1, .ep = 8, .hp = 8})>> h8;
  CHECK(h2.kv_bytes_per_token() == h1.kv_bytes_per_token());
  CHECK(h2.kv_bytes_per_token_per_gpu() == h1.kv_bytes_per_token_per_gpu() / 2);
  CHECK(h8.kv_bytes_per_token_per_gpu() == h1.kv_bytes_per_token_per_gpu() / 8);
  // 576 bf16 elements per layer and token, 61 layers.
  CHECK(h1.kv_bytes_per_token_per_gpu() == 576.0 * 2 * 61);
  CHECK(h2.weight_bytes_per_gpu() < h1.weight_bytes_per_gpu());
  CHECK(h8.weight_bytes_per_gpu() < h2.weight_bytes_per_gpu());
}

TEST_CASE("DeepSeek-V3 long-context decode on 8 GPUs: one request of 1M tokens, attention shrinks as 1/hp") {
  // One DP group holds the request (the others idle): at hp 1 one GPU reads its whole KV,
  // at hp N each of the group's N GPUs reads 1/N of it.
  const Batch b{{}, {1u << 20}};
  const auto r1 = dealt_slot_rows(DeepseekV3<Fixed<deploy(deepseek_v3, {.tp = 1, .ep = 8})>>(), b);
  const auto r2 = dealt_slot_rows(DeepseekV3<Fixed<deploy(deepseek_v3, {.tp = 1, .ep = 8, .hp = 2})>>(), b);
  const auto r4 = dealt_slot_rows(DeepseekV3<Fixed<deploy(deepseek_v3, {.tp = 1, .ep = 8, .hp = 4})>>(), b);
  const auto r8 = dealt_slot_rows(DeepseekV3<Fixed<deploy(deepseek_v3, {.tp = 1, .ep = 8, .hp = 8})>>(), b);
  const std::string decode = "model.moe_layer.dp.attn.decode";
  const double d1 = r1.at(decode).time_s, d2 = r2.at(decode).time_s, d4 = r4.at(decode).time_s,
               d8 = r8.at(decode).time_s;
  CHECK(d2 / d1 == doctest::Approx(0.5).epsilon(0.05));
  CHECK(d4 / d1 == doctest::Approx(0.25).epsilon(0.05));
  CHECK(d8 / d1 == doctest::Approx(0.125).epsilon(0.05));
  // The exchange and merge are small next to what they save.
  const double exchange = r8.at("model.moe_layer.dp.attn.hp_all_to_all").time_s +
                          r8.at("model.moe_layer.dp.attn.hp_combine").time_s +
                          r8.at("model.moe_layer.dp.attn.tp_allreduce").time_s;
  CHECK(exchange < (d1 - d8) / 4);
  const Metrics t1 = run(DeepseekV3<Fixed<deploy(deepseek_v3, {.tp = 1, .ep = 8})>>(), b);
  const Metrics t8 = run(DeepseekV3<Fixed<deploy(deepseek_v3, {.tp = 1, .ep = 8, .hp = 8})>>(), b);
  CHECK(t8.time_s < t1.time_s);
  MESSAGE("DeepSeek-V3 ep 8, 1 decode at 1,048,576 tokens (H200 roofline), per-layer MLA decode ms: hp1 ",
          d1 * 1e3, ", hp2 ", d2 * 1e3, ", hp4 ", d4 * 1e3, ", hp8 ", d8 * 1e3, "; iteration ms: hp1 ", t1.time_ms(),
          ", hp8 ", t8.time_ms());
}

TEST_CASE("DeepSeek-V3 HOP-B: the MLA exchange overlapped with the next slice's attention never costs more") {
  // Serial and overlapped differ in the two hp_all_to_all slots' time only. MLA's message is
  // wide (128 heads × a 512-wide latent per token), so with 512 decodes per group it is
  // bandwidth-bound and slicing hides part of it behind the next slice's attention.
  const std::vector<Batch> decodes{Batch{{}, std::vector<std::uint32_t>(2048, 16384)},
                                   Batch{{}, std::vector<std::uint32_t>(64, 1u << 20)},
                                   Batch{{}, std::vector<std::uint32_t>(256, 8192)},
                                   Batch{{}, {1, 2, 3, 33, 100, 131072}}, Batch{{}, {4096}}, Batch{}};
  bool hid_some = false;
  for (const std::uint32_t hp : {2u, 4u}) {
    DeepseekV3Config serial_cfg = deploy(deepseek_v3, {.tp = 1, .ep = 8, .hp = hp}), overlap_cfg = serial_cfg;
    overlap_cfg.hop_b = true;
    const Hp serial(serial_cfg), overlapped(overlap_cfg);
    const Manifest m = make_manifest(serial.build(roofline_h200()));
    for (const Batch& b : decodes) {
      std::vector<Metrics> rs(m.slots.size()), ro(m.slots.size());
      const Metrics s = run(serial, b, rs), o = run(overlapped, b, ro);
      CHECK(o.time_s <= s.time_s);
      for (std::size_t i = 0; i < m.slots.size(); ++i) {
        CHECK(ro[i].bytes == rs[i].bytes);  // the same work; only the exchange's exposed time changes
        if (m.slots[i].name.ends_with(".hp_all_to_all")) {
          CHECK(ro[i].time_s <= rs[i].time_s);
          hid_some = hid_some || ro[i].time_s < rs[i].time_s;
        } else {
          CHECK(ro[i] == rs[i]);
        }
      }
    }
  }
  CHECK(hid_some);
}

TEST_CASE("DeepSeek-V3 hp rejections name the field, the value and the rule") {
  CHECK_THROWS_WITH_AS(Hp(deploy(deepseek_v3, {.tp = 1, .ep = 8, .hp = 0})), "hp is 0; it must be at least 1", ConfigError);
  CHECK_THROWS_WITH_AS(Hp(deploy(deepseek_v3, {.tp = 1, .ep = 8, .hp = 3})), "hp 3 does not divide ep 8", ConfigError);
  CHECK_THROWS_WITH_AS(
      Hp(deploy(deepseek_v3, {.tp = 2, .ep = 8, .hp = 2})),
      "MLA has one latent KV head: under hp its attention is split by KV alone, tp must be 1: tp 2 exceeds max_tp 1",
      ConfigError);
  CHECK_THROWS_WITH_AS(Hp(deploy(deepseek_v3, {.tp = 1, .ep = 256, .hp = 256})), "hp 256 does not divide num_heads 128",
                       ConfigError);
  // The tp grain takes hp 1 only.
  CHECK_THROWS_WITH_AS(DeepseekV3<DeepseekV3Config>(deploy(deepseek_v3, {.tp = 1, .ep = 8, .hp = 2})),
                       "the tp attention grain runs hp 1 (AttnGrain::hptp splits the KV): hp 2 exceeds max_hp 1",
                       ConfigError);
  // Prefill under hp > 1: hp is a decode-side degree.
  const Hp arch(deploy(deepseek_v3, {.tp = 1, .ep = 8, .hp = 2}));
  DpDeal deal;
  const Batch mixed{{{0, 512}}, {4096}};
  CHECK_THROWS_WITH_AS(arch.inputs(deal.deal(mixed.it(), 4)),
                       "hp 2: an iteration with 1 prefill chunk(s) under KV-parallel attention; hp is a decode-side "
                       "degree (vLLM's decode context parallelism and TensorRT-LLM's helix take the KV from a "
                       "prefill server): run prefill at hp 1",
                       InputError);
}
