// KV-parallel decode (issue 20): attn_block_hptp and Llama3's hptp grain. The hp = 1 law
// (the tp tree, leaf for leaf and bit for bit), the all-to-all and merge sizes by hand,
// the KV deal over the hp ranks (dealt once per iteration for both rank-folded slots),
// decode attention shrinking with hp, and the rejections.
#include <doctest/doctest.h>

#include <array>
#include <map>
#include <string>
#include <variant>
#include <vector>

#include "costdsl/costdsl.hpp"
#include "costdsl/archs/llama3.hpp"
#include "costdsl/archs/qwen3.hpp"
#include "costdsl/archs/support/batch_feed.hpp"
#include "costdsl/ops/attention/kv_slices.hpp"
#include "costdsl/serve/arch_model.hpp"
#include "costdsl/serve/kv_budget.hpp"

#include "../core/alloc_counter.hpp"
#include "common.hpp"

using namespace costdsl;
using namespace costdsl::archs;

namespace {
using arch_test::Batch;
using arch_test::roofline_h200;
using arch_test::kv_parallel_batches;
using arch_test::slot_identity;

// Static hp = 1: the hptp grain builds the tp tree's slots (no hp slot: they are absent),
// and every total and slot row is bitwise the tp arch's.
template <Llama3Config C>
void static_law() {
  const Timing& t = roofline_h200();
  const Llama3<Fixed<C>> tp;
  const Llama3<Fixed<C>, AttnGrain::hptp> hp;
  const auto tt = tp.build(t);
  const auto ht = hp.build(t);
  static_assert(n_slots<decltype(tt)> == n_slots<decltype(ht)>);
  const Manifest mt = make_manifest(tt), mh = make_manifest(ht);
  REQUIRE(mt.slots.size() == mh.slots.size());
  for (std::size_t i = 0; i < mt.slots.size(); ++i) CHECK(slot_identity(mt.slots[i]) == slot_identity(mh.slots[i]));
  CHECK(mt.tree.size() == mh.tree.size());
  for (const Batch& b : kv_parallel_batches()) {
    std::array<Metrics, n_slots<decltype(tt)>> rt{}, rh{};
    CHECK(evaluate(tt, tp.inputs(b.it()), rt) == evaluate(ht, hp.inputs(b.it()), rh));
    CHECK(rt == rh);
  }
}

// Run-time hp = 1: the tree keeps the two hp slots (fixed shape), which push zero; every
// other slot row and the total are bitwise the tp arch's.
void runtime_law(const Llama3Config& c) {
  const Timing& t = roofline_h200();
  const Llama3<Llama3Config> tp(c);
  const Llama3<Llama3Config, AttnGrain::hptp> hp(c);
  const auto tt = tp.build(t);
  const auto ht = hp.build(t);
  const Manifest mt = make_manifest(tt), mh = make_manifest(ht);
  REQUIRE(mh.slots.size() == mt.slots.size() + 2);
  std::map<std::string, std::size_t> in_tp;
  for (std::size_t i = 0; i < mt.slots.size(); ++i) in_tp[mt.slots[i].name] = i;
  for (const Batch& b : kv_parallel_batches()) {
    std::vector<Metrics> rt(mt.slots.size()), rh(mh.slots.size());
    const Metrics total_t = evaluate(tt, tp.inputs(b.it()), std::span<Metrics, n_slots<decltype(tt)>>(rt));
    const Metrics total_h = evaluate(ht, hp.inputs(b.it()), std::span<Metrics, n_slots<decltype(ht)>>(rh));
    CHECK(total_t == total_h);
    std::size_t matched = 0;
    for (std::size_t i = 0; i < mh.slots.size(); ++i) {
      const auto it = in_tp.find(mh.slots[i].name);
      if (it == in_tp.end()) {
        CHECK(rh[i] == Metrics{});  // model.layer.attn.hp_all_to_all / hp_combine
        continue;
      }
      ++matched;
      CHECK(slot_identity(mt.slots[it->second]) == slot_identity(mh.slots[i]));
      CHECK(rt[it->second] == rh[i]);
    }
    CHECK(matched == mt.slots.size());
  }
}

template <class Arch>
std::map<std::string, Metrics> slot_rows(const Arch& arch, const Batch& b) {
  const auto tree = arch.build(roofline_h200());
  const Manifest m = make_manifest(tree);
  std::array<Metrics, n_slots<decltype(tree)>> row{};
  evaluate(tree, arch.inputs(b.it()), row);
  std::map<std::string, Metrics> out;
  for (std::size_t i = 0; i < row.size(); ++i) out[m.slots[i].name] = row[i];
  return out;
}
}  // namespace

TEST_CASE("hp = 1 is exactly the tp tree: static forms, every Llama and several tp") {
  static_law<deploy(llama3_8b)>();
  static_law<deploy(llama3_8b, {.tp = 4})>();
  static_law<deploy(llama3_70b, {.tp = 8})>();
  static_law<deploy(llama3_405b, {.tp = 8})>();
}

TEST_CASE("hp = 1 is exactly the tp tree: run-time forms, the hp slots push zero") {
  for (const Llama3Config& c : {deploy(llama3_8b), deploy(llama3_8b, {.tp = 2}), deploy(llama3_70b, {.tp = 8}), deploy(llama3_405b, {.tp = 4})})
    runtime_law(c);
}

TEST_CASE("the static default grain follows hp; the static and run-time hptp forms agree") {
  static_assert(default_grain<Fixed<deploy(llama3_70b, {.tp = 8})>> == AttnGrain::tp);
  static_assert(default_grain<Fixed<deploy(llama3_70b, {.tp = 8, .hp = 2})>> == AttnGrain::hptp);
  static_assert(default_grain<Llama3Config> == AttnGrain::tp);
  const Timing& t = roofline_h200();
  const Llama3<Fixed<deploy(llama3_70b, {.tp = 8, .hp = 2})>> s;
  const Llama3<Llama3Config, AttnGrain::hptp> r(deploy(llama3_70b, {.tp = 8, .hp = 2}));
  const auto st = s.build(t);
  const auto rt = r.build(t);
  static_assert(n_slots<decltype(st)> == n_slots<decltype(rt)>);
  for (const Batch& b : {Batch{{}, std::vector<std::uint32_t>(16, 131072)}, Batch{{}, {1, 2, 3, 33, 100}}})
    CHECK(evaluate(st, s.inputs(b.it())) == evaluate(rt, r.inputs(b.it())));
}

TEST_CASE("the KV deal: blocks of 32 tokens round-robin from rank 0, the new token's block owner writes") {
  using ops::KvSlices;
  CHECK(KvSlices::slice(131072, 0, 2) == 65536);
  CHECK(KvSlices::slice(131072, 1, 2) == 65536);
  // 100 tokens = blocks 0, 1, 2 (32 each) + 4: rank 0 holds blocks 0 and 2, rank 1 block 1 and the 4.
  CHECK(KvSlices::slice(100, 0, 2) == 64);
  CHECK(KvSlices::slice(100, 1, 2) == 36);
  CHECK(KvSlices::owner(100, 2) == 1);
  CHECK(KvSlices::owner(64, 2) == 1);
  CHECK(KvSlices::owner(65, 2) == 0);
  // A short request lives on rank 0 alone; hp 1 holds everything.
  CHECK(KvSlices::slice(5, 0, 4) == 5);
  CHECK(KvSlices::slice(5, 3, 4) == 0);
  CHECK(KvSlices::slice(12345, 0, 1) == 12345);
  for (std::uint32_t len : {1u, 31u, 32u, 33u, 1000u, 131072u}) {
    std::uint64_t sum = 0;
    for (std::uint32_t r = 0; r < 8; ++r) sum += KvSlices::slice(len, r, 8);
    CHECK(sum == len);
  }
}

TEST_CASE("Llama-3-70B tp 8 hp 2: the slots, the all-to-all and merge sizes by hand, the FFN over 16 GPUs") {
  const Llama3<Fixed<deploy(llama3_70b, {.tp = 8, .hp = 2})>> arch;
  const auto tree = arch.build(roofline_h200());
  const Manifest m = make_manifest(tree);
  std::vector<std::string> attn;
  for (const SlotDescription& s : m.slots)
    if (s.name.starts_with("model.layer.attn.")) attn.push_back(s.name.substr(17));
  CHECK(attn == std::vector<std::string>{"input_norm", "qkv_proj", "rope", "kv_cache_append", "prefill", "decode",
                                         "hp_all_to_all", "hp_combine", "o_proj", "tp_allreduce"});
  const nlohmann::json j = to_json(m);
  auto slot = [&](const std::string& name) {
    for (const auto& s : j["slots"])
      if (s["name"] == name) return s;
    FAIL("no slot " << name);
    return nlohmann::json{};
  };
  // QKV split tp ways (replicated over hp): (64/8 + 2·8/8)·128; o_proj row-parallel over 16: 64/16·128.
  CHECK(slot("model.layer.attn.qkv_proj")["config"]["n"]["value"] == 1280);
  CHECK(slot("model.layer.attn.o_proj")["config"]["k"]["value"] == 512);
  CHECK(slot("model.layer.attn.o_proj")["config"]["k"]["formula"] == "num_qo_heads/(hp*tp)*head_dim");
  CHECK(slot("model.layer.attn.hp_all_to_all")["config"]["num_gpus"]["value"] == 2);
  CHECK(slot("model.layer.attn.hp_combine")["config"]["num_states"]["value"] == 2);
  CHECK(slot("model.layer.attn.hp_combine")["config"]["num_heads"]["value"] == 4);
  CHECK(slot("model.layer.attn.tp_allreduce")["config"]["num_gpus"]["value"] == 16);
  CHECK(slot("model.layer.mlp.up_gate_proj")["config"]["n"]["value"] == 2 * 28672 / 16);
  CHECK(slot("model.layer.mlp.tp_allreduce")["config"]["num_gpus"]["value"] == 16);

  const auto r = slot_rows(arch, Batch{{}, std::vector<std::uint32_t>(16, 131072)});
  // Message per GPU: 16 tokens × 8 heads × (128 × 2 B + one fp32 LSE) = 33,280 B; half leaves.
  CHECK(r.at("model.layer.attn.hp_all_to_all").bytes == 16640.0);
  // Merge: 16 tokens × 4 heads = 64 rows; 2 partials read + 1 written × 128 × 2 B, 2 LSEs × 4 B.
  CHECK(r.at("model.layer.attn.hp_combine").bytes == 64 * 128 * 2 * 3 + 64 * 2 * 4);
  // Each rank attends over 16 × 65,536 tokens; the slot is that launch, work of both ranks.
  const Kernel<kernels::AttnDecode> dec(roofline_h200(), {Dtype::bf16, 8, 1, 128});
  const Metrics one = dec.eval({16, 16 * 65536});
  CHECK(r.at("model.layer.attn.decode").time_s == one.time_s);
  CHECK(r.at("model.layer.attn.decode").flops == 2 * one.flops);
  // 131,072 tokens end block 4095 (odd): every new token is written by rank 1.
  const Kernel<kernels::KvCacheAppend> app(roofline_h200(), {Dtype::bf16, 1, 128});
  CHECK(r.at("model.layer.attn.kv_cache_append").time_s == app.eval({16}).time_s);
}

TEST_CASE("decode attention at 131,072 tokens of KV: per GPU it halves from hp 1 to hp 2, and keeps shrinking") {
  const Batch b{{}, std::vector<std::uint32_t>(16, 131072)};
  const auto r1 = slot_rows(Llama3<Fixed<deploy(llama3_70b, {.tp = 8})>>(), b);
  const auto r2 = slot_rows(Llama3<Fixed<deploy(llama3_70b, {.tp = 8, .hp = 2})>>(), b);
  const auto r4 = slot_rows(Llama3<Fixed<deploy(llama3_70b, {.tp = 8, .hp = 4})>>(), b);
  const double d1 = r1.at("model.layer.attn.decode").time_s, d2 = r2.at("model.layer.attn.decode").time_s,
               d4 = r4.at("model.layer.attn.decode").time_s;
  CHECK(d2 / d1 == doctest::Approx(0.5).epsilon(0.05));
  CHECK(d4 / d2 == doctest::Approx(0.5).epsilon(0.05));
  // The exchange and merge are small next to what they save.
  CHECK(r2.at("model.layer.attn.hp_all_to_all").time_s + r2.at("model.layer.attn.hp_combine").time_s < (d1 - d2) / 4);
  // The whole iteration is shorter too.
  const Llama3<Fixed<deploy(llama3_70b, {.tp = 8})>> a1;
  const Llama3<Fixed<deploy(llama3_70b, {.tp = 8, .hp = 2})>> a2;
  CHECK(evaluate(a2.build(roofline_h200()), a2.inputs(b.it())).time_s <
        evaluate(a1.build(roofline_h200()), a1.inputs(b.it())).time_s);
}

TEST_CASE("KV and weights per GPU follow the grain; a worker's KV capacity more than doubles with hp 2") {
  const Llama3<Fixed<deploy(llama3_70b, {.tp = 8})>> a1;
  const Llama3<Fixed<deploy(llama3_70b, {.tp = 8, .hp = 2})>> a2;
  CHECK(a2.kv_bytes_per_token_per_gpu() == a1.kv_bytes_per_token_per_gpu() / 2);
  CHECK(a2.weight_bytes_per_gpu() < a1.weight_bytes_per_gpu());  // o_proj and the FFN over 16 GPUs
  const serve::ArchModel m1(a1, roofline_h200());
  const serve::ArchModel m2(a2, roofline_h200());
  CHECK(m1.gpus() == 8);
  CHECK(m2.gpus() == 16);
  const GpuSpec& gpu = roofline_h200().gpu();
  const serve::KvBudget b1 = serve::kv_budget(m1, gpu, {}), b2 = serve::kv_budget(m2, gpu, {});
  CHECK(b2.worker_tokens() > 2 * b1.worker_tokens());
}

TEST_CASE("hp rejections name the field, the value and the rule") {
  using Hp = Llama3<Llama3Config, AttnGrain::hptp>;
  CHECK_THROWS_WITH_AS(Hp(deploy(llama3_70b, {.tp = 8, .hp = 0})), "hp is 0; it must be at least 1", ConfigError);
  CHECK_THROWS_WITH_AS(Hp(deploy(llama3_70b, {.tp = 16, .hp = 2})),
                       "tp may not exceed num_kv_heads (KV heads are not replicated): tp 16 exceeds num_kv_heads 8",
                       ConfigError);
  CHECK_THROWS_WITH_AS(Hp(deploy(llama3_70b, {.tp = 8, .hp = 3})), "hp*tp 24 does not divide num_qo_heads 64",
                       ConfigError);
  Llama3Config odd = deploy(llama3_8b, {.tp = 8, .hp = 4});
  odd.intermediate = 14000;
  CHECK_THROWS_WITH_AS(Hp{odd}, "hp*tp 32 does not divide intermediate 14000", ConfigError);
  CHECK_THROWS_WITH_AS(Hp(deploy(llama3_70b, {.tp = 8, .hp = 2048})), "hp may not exceed max_hp: hp 2048 exceeds max_hp 1024",
                       ConfigError);
  // The tp grain takes hp 1 only.
  CHECK_THROWS_WITH_AS(Llama3<Llama3Config>(deploy(llama3_70b, {.tp = 8, .hp = 2})),
                       "the tp attention grain runs hp 1 (AttnGrain::hptp splits the KV): hp 2 exceeds max_hp 1",
                       ConfigError);
  // Prefill under hp > 1 is a decode-side degree's misuse.
  const Hp arch(deploy(llama3_70b, {.tp = 8, .hp = 2}));
  const Batch mixed{{{0, 512}}, {4096}};
  CHECK_THROWS_WITH_AS(arch.inputs(mixed.it()),
                       "hp 2: an iteration with 1 prefill chunk(s) under KV-parallel attention; hp is a decode-side "
                       "degree (vLLM's decode context parallelism and TensorRT-LLM's helix take the KV from a "
                       "prefill server): run prefill at hp 1",
                       InputError);
}

namespace {
// Every rank's load of `lens` request by request, from slice() and owner().
std::vector<ops::KvSlices::RankLoad> deal_by_request(const std::vector<std::uint32_t>& lens,
                                                          std::uint64_t prefill, std::uint32_t hp) {
  using ops::KvSlices;
  std::vector<KvSlices::RankLoad> want(hp, KvSlices::RankLoad{0, 0, 0});
  want[0].rows = prefill;
  for (std::uint32_t r = 0; r < hp; ++r)
    for (const std::uint32_t len : lens) {
      const std::uint64_t mine = KvSlices::slice(len, r, hp);
      want[r].kv += mine;
      want[r].batch += mine != 0 ? 1 : 0;
      want[r].rows += len != 0 && KvSlices::owner(len, hp) == r ? 1 : 0;
    }
  return want;
}
}  // namespace

TEST_CASE("the KV deal in one pass: every rank's load matches slice() and owner() request by request") {
  using ops::KvSlices;
  // Lengths at block edges, empty slots, lengths near 2^32 (the whole rounds' 64-bit sum),
  // and counts that leave a partial block of lanes.
  std::vector<std::uint32_t> lens{1, 2, 31, 32, 33, 63, 64, 65, 100, 1000, 4096, 4097, 131072, 131071, 777, 0,
                                  4294967295u, 4294967264u, 0, 4000000000u};
  for (std::uint32_t i = 0; i < 203; ++i) lens.push_back(1 + (i * 2654435761u) % 20000);
  for (const std::size_t count : {lens.size(), std::size_t{7}, std::size_t{8}, std::size_t{9}, std::size_t{0}}) {
    const std::vector<std::uint32_t> some(lens.begin(), lens.begin() + static_cast<std::ptrdiff_t>(count));
    for (const std::uint32_t hp : {1u, 2u, 3u, 4u, 7u, 8u, 16u, 64u}) {
      const KvSlices s{some, 500, hp};
      const auto want = deal_by_request(some, 500, hp);
      std::array<KvSlices::RankLoad, KvSlices::max_hp> loads, rows_only, reads_only;
      s.deal(loads);
      s.deal<true, false>(rows_only);
      s.deal<false, true>(reads_only);
      for (std::uint32_t r = 0; r < hp; ++r) {
        INFO("hp ", hp, ", rank ", r, ", requests ", count);
        CHECK(loads[r].kv == want[r].kv);
        CHECK(loads[r].batch == want[r].batch);
        CHECK(loads[r].rows == want[r].rows);
        CHECK(rows_only[r].rows == want[r].rows);  // each slot asks only for what it launches
        CHECK(reads_only[r].kv == want[r].kv);
        CHECK(reads_only[r].batch == want[r].batch);
      }
    }
  }
}

TEST_CASE("the KV deal over more requests than one chunk of 32-bit sums: still exact") {
  using ops::KvSlices;
  std::vector<std::uint32_t> lens(70'003);
  for (std::uint32_t i = 0; i < lens.size(); ++i) lens[i] = 1 + (i * 2654435761u) % 300'000;
  for (const std::uint32_t hp : {2u, 4u, 8u}) {
    std::array<KvSlices::RankLoad, KvSlices::max_hp> loads;
    KvSlices{lens, 0, hp}.deal(loads);
    const auto want = deal_by_request(lens, 0, hp);
    for (std::uint32_t r = 0; r < hp; ++r) {
      CHECK(loads[r].kv == want[r].kv);
      CHECK(loads[r].batch == want[r].batch);
      CHECK(loads[r].rows == want[r].rows);
    }
  }
}

TEST_CASE("decode rows (a speculative step's verified tokens): the deal and the iteration of each decode listed as often") {
  using ops::KvSlices;
  std::vector<std::uint32_t> lens{1, 31, 32, 33, 100, 4097, 131072, 0, 777};
  for (std::uint32_t i = 0; i < 61; ++i) lens.push_back(1 + (i * 2654435761u) % 20000);
  for (const std::uint32_t rows : {1u, 2u, 4u}) {
    std::vector<std::uint32_t> listed;
    for (const std::uint32_t len : lens) listed.insert(listed.end(), rows, len);
    for (const std::uint32_t hp : {1u, 2u, 3u, 4u, 8u, 16u}) {
      std::array<KvSlices::RankLoad, KvSlices::max_hp> got, want;
      KvSlices{lens, 500, hp, rows}.deal(got);
      KvSlices{listed, 500, hp}.deal(want);
      for (std::uint32_t r = 0; r < hp; ++r) {
        INFO("rows ", rows, ", hp ", hp, ", rank ", r);
        CHECK(got[r].rows == want[r].rows);
        CHECK(got[r].batch == want[r].batch);
        CHECK(got[r].kv == want[r].kv);
      }
    }
  }
  // Whole iterations, tp and hptp grains (the exchange's message counts rows too).
  const std::vector<std::uint32_t> decode{4096, 4097, 100, 33, 131072, 7};
  std::vector<std::uint32_t> thrice;
  for (const std::uint32_t kv : decode) thrice.insert(thrice.end(), 3, kv);
  const auto check = [&](const auto& arch, std::span<const ops::PrefillChunk> prefill) {
    const auto tree = arch.build(roofline_h200());
    const Metrics rows = evaluate(tree, arch.inputs({prefill, decode, 3}));
    CHECK(rows == evaluate(tree, arch.inputs({prefill, thrice})));
    CHECK(rows.time_s > evaluate(tree, arch.inputs({prefill, decode})).time_s);
  };
  const std::vector<ops::PrefillChunk> chunk{{0, 512}};
  check(Llama3<Fixed<deploy(llama3_70b, {.tp = 8})>>(), chunk);
  check(Llama3<Fixed<deploy(llama3_70b, {.tp = 8, .hp = 2})>>(), {});
  check(Llama3<Llama3Config, AttnGrain::hptp>(deploy(llama3_70b, {.tp = 8, .hp = 4})), {});
  const std::uint32_t one[] = {1};
  CHECK_THROWS_WITH_AS(ops::collapse({{}, one, 0}),
                       "decode_rows 0: a decode runs 1 row, or 1 + the draft tokens a speculative step verifies (1 to 4096)",
                       InputError);
  CHECK_THROWS_WITH_AS(ops::collapse({{}, one, 4097}),
                       "decode_rows 4097: a decode runs 1 row, or 1 + the draft tokens a speculative step verifies (1 to 4096)",
                       InputError);
  CHECK(ops::collapse({{}, one, 4096}).decode_count == 4096);
}

TEST_CASE("hp ranks in one slot: the slowest rank's time, every rank's work; their mean in the balanced view") {
  using ops::KvSlices;
  const Kernel<kernels::AttnDecode> kernel(roofline_h200(), {Dtype::bf16, 8, 1, 128});
  const ops::HpRankFolded<kernels::AttnDecode> decode{kernel};
  // hp 4, blocks of 32 dealt from rank 0: 2,000 requests shorter than a block live on rank 0
  // alone; one long request reaches every rank.
  std::vector<std::uint32_t> lens(2000, 30);
  lens.push_back(4000);
  const KvSlices slices{lens, 0, 4};
  std::array<KvSlices::RankLoad, KvSlices::max_hp> loads;
  slices.deal(loads);
  double slowest = 0, total = 0, flops = 0;
  for (std::uint32_t r = 0; r < 4; ++r) {
    const Metrics m = kernel.eval<Quantities::time_and_work>({loads[r].batch, loads[r].kv});
    slowest = std::max(slowest, m.time_s);
    total += m.time_s;
    flops += m.flops;
  }
  REQUIRE(slowest > 1.5 * total / 4);  // the deal leaves the ranks unequal
  const Metrics max = decode.eval<Quantities::time_and_work>(ops::KvSlicesRef(slices));
  const Metrics mean = decode.eval<Quantities::time_and_work, RankFold::mean>(ops::KvSlicesRef(slices));
  CHECK(max.time_s == slowest);
  CHECK(mean.time_s == doctest::Approx(total / 4).epsilon(1e-12));
  CHECK(max.flops == doctest::Approx(flops).epsilon(1e-12));
  CHECK(mean.flops == max.flops);
  // In a tree: evaluate() folds the ranks with the max, evaluate_balanced() with the mean.
  const auto tree = sum(leaf<"decode">(decode));
  const auto in = inputs(input<"decode">(ops::KvSlicesRef(slices)));
  CHECK(evaluate(tree, in).time_s == max.time_s);
  CHECK(evaluate_balanced(tree, in).time_s == mean.time_s);
}

TEST_CASE("--kv-replicate: tp above the KV heads by copying them, the baseline hp must beat") {
  constexpr Llama3Config tp16 = [] {
    Llama3Config c = deploy(llama3_70b, {.tp = 16});
    c.kv_replicate = true;
    return c;
  }();
  const Llama3<Fixed<tp16>> s;
  const Llama3<Llama3Config> r(tp16);
  const auto st = s.build(roofline_h200());
  const auto rt = r.build(roofline_h200());
  const Batch b{{{0, 2048}}, std::vector<std::uint32_t>(16, 131072)};
  CHECK(evaluate(st, s.inputs(b.it())) == evaluate(rt, r.inputs(b.it())));
  // Each rank projects and stores its copy of one KV head next to 64/16 = 4 query heads.
  const nlohmann::json j = to_json(make_manifest(st));
  for (const auto& slot : j["slots"])
    if (slot["name"] == "model.layer.attn.qkv_proj") CHECK(slot["config"]["n"]["value"] == (4 + 2 * 1) * 128);
  // The KV cache per GPU stops shrinking past tp = num_kv_heads; hp keeps splitting it.
  const Llama3<Fixed<deploy(llama3_70b, {.tp = 8})>> tp8;
  const Llama3<Fixed<deploy(llama3_70b, {.tp = 8, .hp = 2})>> hp2;
  CHECK(s.kv_bytes_per_token_per_gpu() == tp8.kv_bytes_per_token_per_gpu());
  CHECK(hp2.kv_bytes_per_token_per_gpu() == tp8.kv_bytes_per_token_per_gpu() / 2);
  CHECK(s.kv_bytes_per_token() == tp8.kv_bytes_per_token());  // the model's KV is the same either way
  // Weights per GPU: the copied K and V projections, tp-sharded o_proj, FFN, embedding and lm_head.
  const double h = 8192, per_layer = h * (64 + 2 * 16) * 128 / 16 + (64 * 128 / 16) * h + 3 * h * 28672 / 16 + 2 * h;
  CHECK(s.weight_bytes_per_gpu() == doctest::Approx(2 * (80 * per_layer + 2 * (128256 / 16) * h + h)));
  // 16 GPUs on 16 long decodes: replicated heads read the whole KV on every GPU, hp half of it.
  const auto rep = slot_rows(s, Batch{{}, std::vector<std::uint32_t>(16, 131072)});
  const auto kvp = slot_rows(hp2, Batch{{}, std::vector<std::uint32_t>(16, 131072)});
  CHECK(kvp.at("model.layer.attn.decode").time_s < 0.6 * rep.at("model.layer.attn.decode").time_s);
  // Without the opt-in the rule stands; with it, num_kv_heads must divide tp.
  CHECK_THROWS_WITH_AS(Llama3<Llama3Config>(deploy(llama3_70b, {.tp = 16})),
                       "tp may not exceed num_kv_heads (KV heads are not replicated): tp 16 exceeds num_kv_heads 8",
                       ConfigError);
  Llama3Config tp12 = deploy(llama3_70b, {.tp = 12});
  tp12.kv_replicate = true;
  CHECK_THROWS_WITH_AS(Llama3<Llama3Config>{tp12}, "num_kv_heads 8 does not divide tp 12", ConfigError);
  // At or below the KV heads the flag changes nothing.
  Llama3Config tp8_flag = deploy(llama3_70b, {.tp = 8});
  tp8_flag.kv_replicate = true;
  const Llama3<Llama3Config> a(deploy(llama3_70b, {.tp = 8})), f(tp8_flag);
  CHECK(evaluate(a.build(roofline_h200()), a.inputs(b.it())) == evaluate(f.build(roofline_h200()), f.inputs(b.it())));
}

TEST_CASE("HOP-B: the exchange overlapped with the next slice's attention never costs more than serial") {
  const Timing& t = roofline_h200();
  const std::vector<Batch> decodes{Batch{{}, std::vector<std::uint32_t>(16, 131072)},
                                   Batch{{}, std::vector<std::uint32_t>(256, 8192)},
                                   Batch{{}, {1, 2, 3, 33, 100, 131072}}, Batch{{}, {4096}}, Batch{}};
  for (const std::uint32_t hp : {2u, 4u, 8u}) {
    Llama3Config serial_cfg = deploy(llama3_70b, {.tp = 8, .hp = hp}), overlap_cfg = serial_cfg;
    overlap_cfg.hop_b = true;
    const Llama3<Llama3Config, AttnGrain::hptp> serial(serial_cfg), overlapped(overlap_cfg);
    const auto ts = serial.build(t);
    const auto to = overlapped.build(t);
    const Manifest m = make_manifest(ts);
    CHECK(slot_identity(m.slots[7]) == slot_identity(make_manifest(to).slots[7]));  // same slot, same kind and config
    for (const Batch& b : decodes) {
      std::vector<Metrics> rs(m.slots.size()), ro(m.slots.size());
      const Metrics s = evaluate(ts, serial.inputs(b.it()), std::span<Metrics, n_slots<decltype(ts)>>(rs));
      const Metrics o = evaluate(to, overlapped.inputs(b.it()), std::span<Metrics, n_slots<decltype(to)>>(ro));
      CHECK(o.time_s <= s.time_s);
      for (std::size_t i = 0; i < m.slots.size(); ++i) {
        CHECK(ro[i].bytes == rs[i].bytes);  // the same work; only the exchange's exposed time changes
        if (m.slots[i].name != "model.layer.attn.hp_all_to_all") CHECK(ro[i] == rs[i]);
      }
    }
  }
  // The exposed exchange by hand: the best of the serial schedule and S = 2, 4, 8 slices, each
  // slice's attention the slowest rank's, its exchange after its attention and the previous one.
  Llama3Config c = deploy(llama3_70b, {.tp = 8, .hp = 4});
  c.hop_b = true;
  const Batch& b = decodes[1];
  const auto on = slot_rows(Llama3<Llama3Config, AttnGrain::hptp>(c), b);
  const auto off = slot_rows(Llama3<Llama3Config, AttnGrain::hptp>(deploy(llama3_70b, {.tp = 8, .hp = 4})), b);
  const Kernel<kernels::AttnDecode> dec(t, {Dtype::bf16, 8, 1, 128});
  const Kernel<kernels::AllToAll> a2a(t, {4});
  const double per_token = 8 * (128 * 2 + 4);  // tp rank's heads × (head_dim × bf16 + fp32 LSE)
  auto attention = [&](std::size_t n) {  // n decodes of 8192: every rank holds 2048 of each
    return dec.eval({n, n * 2048}).time_s;
  };
  auto exchange = [&](std::size_t n) {
    const auto bytes = static_cast<std::uint64_t>(double(n) * per_token);
    return a2a.eval({bytes, bytes}).time_s;
  };
  double want = exchange(256);
  CHECK(off.at("model.layer.attn.hp_all_to_all").time_s == want);
  for (const std::size_t slices : {2u, 4u, 8u}) {
    double attention_done = 0, exchange_done = 0;
    for (std::size_t i = 0; i < slices; ++i) {
      attention_done += attention(256 / slices);
      exchange_done = std::max(exchange_done, attention_done) + exchange(256 / slices);
    }
    want = std::min(want, exchange_done - attention(256));
  }
  CHECK(on.at("model.layer.attn.hp_all_to_all").time_s == doctest::Approx(std::max(want, 0.0)).epsilon(1e-12));
  CHECK(on.at("model.layer.attn.decode") == off.at("model.layer.attn.decode"));
}

// The KV dealt once per iteration (inputs(it, scratch), as BatchFeed calls it) is bitwise
// the self-contained inputs(it), whose rank-folded slots each deal it; one scratch serves
// one arch after another, and once warm an iteration allocates nothing.
template <class A>
void dealt_once_law(const A& arch, InputScratch& shared) {
  const auto tree = arch.build(roofline_h200());
  BatchFeed feed;
  std::array<Metrics, n_slots<decltype(tree)>> want{}, got{}, fed{};
  for (const Batch& b : kv_parallel_batches()) {
    if (values(arch.form()).hp > 1 && !b.prefill.empty()) continue;  // hp is decode-only
    const Metrics owned = evaluate(tree, arch.inputs(b.it()), want);
    CHECK(evaluate(tree, arch.inputs(b.it(), shared), got) == owned);
    CHECK(evaluate(tree, feed(arch, b.it()), fed) == owned);
    CHECK(got == want);
    CHECK(fed == want);
  }
  const Batch b{{}, {1, 2, 3, 33, 100, 131072, 4097, 65}};
  const Metrics owned = evaluate(tree, arch.inputs(b.it()));
  Metrics total{};
  const long before = costdsl::testing::allocation_count();
  for (int i = 0; i < 100; ++i) total = evaluate(tree, feed(arch, b.it()));
  CHECK(costdsl::testing::allocation_count() == before);
  CHECK(total == owned);
}

TEST_CASE("the KV dealt once for both rank-folded slots: bitwise the per-slot deal, nothing allocated once warm") {
  InputScratch shared;
  dealt_once_law(Llama3<Fixed<deploy(llama3_70b, {.tp = 8, .hp = 2})>>(), shared);
  dealt_once_law(Llama3<Llama3Config, AttnGrain::hptp>(deploy(llama3_70b, {.tp = 8, .hp = 4})), shared);
  dealt_once_law(Llama3<Llama3Config, AttnGrain::hptp>(deploy(llama3_70b, {.tp = 4, .hp = 16})), shared);  // past hp 8
  dealt_once_law(Llama3<Llama3Config, AttnGrain::hptp>(deploy(llama3_70b, {.tp = 8})), shared);  // hp 1: prefill rows too
  Llama3Config hop_b = deploy(llama3_70b, {.tp = 8, .hp = 2});
  hop_b.hop_b = true;
  dealt_once_law(Llama3<Llama3Config, AttnGrain::hptp>(hop_b), shared);
  dealt_once_law(Qwen3<Fixed<deploy(qwen3_32b, {.tp = 8, .hp = 2})>>(), shared);
  dealt_once_law(Qwen3<Qwen3Config, AttnGrain::hptp>(deploy(qwen3_32b, {.tp = 4, .hp = 4})), shared);
}

TEST_CASE("serve::ArchModel's Reevaluator over a decode stretch is evaluate() per iteration, hp 2 and its tp twin") {
  // The rank-folded slots take spans (the decodes' KV, the dealt loads): evaluated every
  // iteration; the projections keep their rows while the token count stays.
  const auto check = [](const auto& arch) {
    const auto tree = arch.build(roofline_h200());
    BatchFeed feed, plain;
    std::vector<std::uint32_t> kv{40, 900, 77, 4096, 33, 1};
    Reevaluator<std::remove_const_t<decltype(tree)>, decltype(feed(arch, ops::AttentionBatch{}))> again;
    serve::ArchModel model(arch, roofline_h200());
    for (int step = 0; step < 12; ++step) {
      CAPTURE(step);
      if (step == 6) kv.push_back(5000);  // a request joins: every token count changes
      const ops::AttentionBatch b{{}, kv};
      const Metrics want = evaluate(tree, plain(arch, b));
      CHECK(again(tree, feed(arch, b)) == want);
      CHECK(model.iteration_s(b) == want.time_s);
      for (std::uint32_t& x : kv) ++x;
    }
  };
  check(Llama3<Fixed<deploy(llama3_70b, {.tp = 8, .hp = 2})>>{});
  check(Llama3<Fixed<deploy(llama3_70b, {.tp = 8})>>{});
  check(Llama3<Llama3Config, AttnGrain::hptp>(deploy(llama3_70b, {.tp = 4, .hp = 4})));
}
