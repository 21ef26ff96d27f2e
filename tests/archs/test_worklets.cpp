#include <doctest/doctest.h>

#include <memory>
#include <span>
#include <vector>

#include "costdsl/costdsl.hpp"
#include "costdsl/archs/support/input_scratch.hpp"
#include "costdsl/archs/llama3.hpp"
#include "costdsl/archs/qwen3_moe.hpp"
#include "costdsl/worklets/attn_local.hpp"
#include "costdsl/worklets/embed_tp.hpp"
#include "costdsl/worklets/lm_head_tp.hpp"
#include "costdsl/worklets/mlp_local.hpp"
#include "costdsl/worklets/pre_attn_local.hpp"

#include "../core/alloc_counter.hpp"
#include "common.hpp"

using namespace costdsl;
using namespace costdsl::archs;
using namespace costdsl::worklets;

namespace {
using arch_test::roofline_h200;
const std::vector<ops::PrefillChunk> chunks{{0, 512}, {1024, 128}};
const std::vector<std::uint32_t> decodes(24, 3000);
const ops::AttentionWork work = ops::collapse({chunks, decodes});

// A manifest's slots without dim provenance: the TP block's formulas say "/tp", the
// local worklet's do not, but names, kinds, backends and values must agree.
nlohmann::json without_provenance(nlohmann::json j) {
  if (j.is_object()) {
    if (j.contains("formula") && j.contains("value")) return j["value"];
    for (auto& [key, value] : j.items()) value = without_provenance(value);
  } else if (j.is_array()) {
    for (auto& value : j) value = without_provenance(value);
  }
  return j;
}
}  // namespace

TEST_CASE("attn_block_tp at tp 1 is pre_attn_local then attn_local, slot for slot") {
  using F = Fixed<deploy(llama3_8b)>;
  const Timing& t = roofline_h200();
  const AttnBlockTp<F> block(F{});
  const PreAttnLocal<F, "attn"> pre(F{});
  const AttnLocal<F, "attn"> attn(F{});
  const auto block_tree = block.build(t);
  const auto local_tree = sum(pre.build(t), attn.build(t));
  static_assert(n_slots<decltype(block_tree)> == n_slots<decltype(local_tree)>);
  static_assert(slot_paths<decltype(block_tree)> == slot_paths<decltype(local_tree)>);
  const nlohmann::json jb = to_json(make_manifest(block_tree)), jl = to_json(make_manifest(local_tree));
  CHECK(without_provenance(jb["slots"]) == without_provenance(jl["slots"]));
  CHECK(jb["slots"] != jl["slots"]);  // ...while the block's formulas still show the partition
  const std::uint64_t m = work.append_tokens;
  const Metrics b = evaluate(block_tree, block.inputs({m, work}));
  const Metrics l = evaluate(local_tree, inputs(pre.inputs({m}), attn.inputs({m, work})));
  CHECK(b == l);
  CHECK(b.time_s > 0);
}

TEST_CASE("mlp_block_tp at tp 1 is mlp_local, slot for slot; a run-time tp 1 adds only a zero all-reduce") {
  const Timing& t = roofline_h200();
  using F = Fixed<deploy(llama3_70b)>;
  const MlpBlockTp<F> block(F{});
  const MlpLocal<F> local(F{});
  const auto bt = block.build(t);
  const auto lt = local.build(t);
  static_assert(slot_paths<decltype(bt)> == slot_paths<decltype(lt)>);
  CHECK(without_provenance(to_json(make_manifest(bt))["slots"]) == without_provenance(to_json(make_manifest(lt))["slots"]));
  CHECK(evaluate(bt, block.inputs({777})) == evaluate(lt, local.inputs({777})));

  const MlpBlockTp<Llama3Config> runtime(deploy(llama3_70b));
  const auto rt = runtime.build(t);
  static_assert(n_slots<decltype(rt)> == n_slots<decltype(lt)> + 1);
  std::array<Metrics, n_slots<decltype(rt)>> row{};
  CHECK(evaluate(rt, runtime.inputs({777}), row) == evaluate(lt, local.inputs({777})));
  CHECK(row.back() == Metrics{});
}

TEST_CASE("local worklets never partition: a form's tp does not shard them") {
  const Timing& t = roofline_h200();
  const Llama3Config tp8 = deploy(llama3_8b, {.tp = 8});
  const PreAttnLocal<Llama3Config> pre(tp8);
  CHECK(pre.resolved().qkv_n.value() == (32 + 2 * 8) * 128);
  const MlpLocal<Llama3Config> mlp(tp8);
  CHECK(mlp.resolved().up_gate_n.value() == 2 * 14336);
  const nlohmann::json j = to_json(make_manifest(mlp.build(t)));
  REQUIRE(j["slots"].size() == 4);
  for (const auto& s : j["slots"]) CHECK(s["kind"] != "all_reduce");
  CHECK(j["slots"][1]["config"]["n"]["formula"] == "2*intermediate");
}

TEST_CASE("the embedding and the lm_head are vocabulary-parallel: vocab/tp rows, one collective each") {
  const Timing& t = roofline_h200();
  // Qwen3-32B's 151936 rows split 8 ways exactly; Mixtral-8x7B's 32000 over 3 GPUs does not
  // divide: the shard is rounded up (the frameworks pad the vocabulary), never refused.
  for (const auto& [vocab, tp, rows] : {std::tuple{151936u, 8u, 18992ull}, std::tuple{32000u, 3u, 10667ull},
                                        std::tuple{128256u, 1u, 128256ull}}) {
    CAPTURE(tp);
    Llama3Config c = deploy(llama3_8b);
    c.vocab = vocab;
    c.tp = tp;
    const LmHeadTp<Llama3Config> head(c);
    const Manifest hm = make_manifest(head.build(t));
    REQUIRE(hm.slots.size() == 3);
    const nlohmann::json hj = to_json(hm);
    CHECK(hj["slots"][1]["kind"] == "gemm");
    CHECK(hj["slots"][1]["config"]["n"]["value"] == rows);
    CHECK(hj["slots"][1]["config"]["n"]["formula"] == "vocab/tp rounded up");
    CHECK(hj["slots"][2]["kind"] == "all_gather");
    const EmbedTp<Llama3Config> embed(c);
    const nlohmann::json ej = to_json(make_manifest(embed.build(t)));
    REQUIRE(ej["slots"].size() == 2);
    CHECK(ej["slots"][0]["config"]["vocab"]["value"] == rows);
    CHECK(ej["slots"][1]["kind"] == "all_reduce");

    // 40 requests reach the head: 40 rows of the shard's logits, then every rank gathers
    // all tp shards (padding included) in bf16; 300 new tokens are embedded and all-reduced.
    std::array<Metrics, 3> hrow{};
    evaluate(head.build(t), head.inputs({40}), hrow);
    CHECK(hrow[1].flops == doctest::Approx(2.0 * 40 * double(rows) * 4096));
    const double gathered = 40.0 * double(rows) * tp * 2;
    const double bus = tp == 1 ? 0.0 : gathered * (tp - 1) / tp;
    CHECK(hrow[2].bytes == doctest::Approx(bus));
    CHECK((hrow[2] == Metrics{}) == (tp == 1));
    std::array<Metrics, 2> erow{};
    evaluate(embed.build(t), embed.inputs({300}), erow);
    CHECK((erow[1] == Metrics{}) == (tp == 1));
    if (tp > 1) CHECK(erow[1].bytes == doctest::Approx(300.0 * 4096 * 2 * 2 * (tp - 1) / tp));
  }
}

TEST_CASE("the rope slot rotates every q and k head of the rank") {
  const Timing& t = roofline_h200();
  using F = Fixed<deploy(llama3_8b, {.tp = 4})>;
  const AttnBlockTp<F> block(F{});
  const nlohmann::json j = to_json(make_manifest(block.build(t)));
  REQUIRE(j["slots"][2]["name"] == "attn.rope");
  CHECK(j["slots"][2]["config"]["num_qo_heads"]["value"] == 8);
  CHECK(j["slots"][2]["config"]["num_kv_heads"]["value"] == 2);
  const auto tree = block.build(t);
  std::array<Metrics, n_slots<decltype(tree)>> row{};
  evaluate<Quantities::with_energy>(tree, block.inputs({100, work}), row);  // as Kernel::eval answers
  CHECK(row[2] == Kernel<kernels::Rope>(t, {Dtype::bf16, 8, 2, 128}).eval({100}));
}

TEST_CASE("Qwen3 attention normalizes q and k per head: one row per token and head of the rank") {
  const Timing& t = roofline_h200();
  const Qwen3MoeConfig cfg = deploy(qwen3_30b_a3b, {.tp = 2, .ep = 2});
  const AttnBlockTp<Qwen3MoeConfig, "attn", ops::QkNorm::per_head> block(cfg);
  const auto tree = block.build(t);
  static_assert(n_slots<decltype(tree)> == 10);  // input_norm qkv q_norm k_norm rope append prefill decode o_proj allreduce
  const nlohmann::json j = to_json(make_manifest(tree));
  CHECK(j["slots"][2]["name"] == "attn.q_norm");
  CHECK(j["slots"][3]["name"] == "attn.k_norm");
  CHECK(j["slots"][2]["config"]["hidden"]["value"] == 128);  // over head_dim
  std::array<Metrics, 10> row{};
  evaluate<Quantities::with_energy>(tree, block.inputs({50, work}), row);
  const Kernel<kernels::RmsNorm> norm(t, {Dtype::bf16, 128});
  CHECK(row[2] == norm.eval({50 * 16}));  // 32 qo heads / tp 2
  CHECK(row[3] == norm.eval({50 * 2}));   // 4 kv heads / tp 2
  // The Llama block (no q/k norm) has neither slot.
  const AttnBlockTp<Llama3Config> llama(deploy(llama3_8b, {.tp = 2}));
  CHECK(to_json(make_manifest(llama.build(t)))["slots"][2]["name"] == "attn.rope");
}

TEST_CASE("InputScratch hands out the same buffers each iteration; another type replaces a buffer") {
  InputScratch scratch;
  const std::span<std::uint64_t> a = scratch.take<std::uint64_t>(3);
  const std::span<ops::AttentionWork> b = scratch.take<ops::AttentionWork>(8);
  CHECK(a.size() == 3);
  CHECK(b.size() == 8);
  a[0] = 7;
  const long before = costdsl::testing::allocation_count();
  scratch.reset();
  const std::span<std::uint64_t> a2 = scratch.take<std::uint64_t>(3);
  const std::span<ops::AttentionWork> b2 = scratch.take<ops::AttentionWork>(8);
  CHECK(costdsl::testing::allocation_count() == before);  // warm: nothing allocated
  CHECK(a2.data() == a.data());
  CHECK(b2.data() == b.data());
  CHECK(a2[0] == 7);  // stale values stay: the caller assigns every element
  scratch.reset();
  const std::span<double> c = scratch.take<double>(5);  // slot 0 held uint64_t: replaced
  CHECK(c.size() == 5);
  const std::span<ops::AttentionWork> shrunk = scratch.take<ops::AttentionWork>(2);  // slot 1 kept its type
  CHECK(shrunk.size() == 2);
  CHECK(shrunk.data() == b.data());
  // A count that varies from iteration to iteration (a fan-out's runs of groups): back up
  // to the most it ever held, nothing allocated, the same storage.
  const long warm = costdsl::testing::allocation_count();
  scratch.reset();
  scratch.take<double>(5);
  const std::span<ops::AttentionWork> regrown = scratch.take<ops::AttentionWork>(8);
  CHECK(regrown.size() == 8);
  CHECK(regrown.data() == b.data());
  CHECK(costdsl::testing::allocation_count() == warm);
}

TEST_CASE("EpLoadRef: owning and borrowing handles read the same load; moving keeps the address") {
  auto owned = std::make_unique<ops::moe::EpLoad>(ops::moe::route(4160, 128, 8, 8, {1.0}));
  const ops::moe::EpLoad* raw = owned.get();
  ops::moe::EpLoadRef first(std::move(owned));
  const ops::moe::EpLoadRef borrowed(*first);
  const ops::moe::EpLoadRef moved(std::move(first));
  CHECK(&*moved == raw);
  CHECK(&*borrowed == raw);
  CHECK(moved->total_rows() == 4160u * 8);
  CHECK(borrowed->used().size() == 8);
}
