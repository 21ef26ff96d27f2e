#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <numeric>
#include <random>
#include <vector>

#include "costdsl/archs/qwen3_moe.hpp"
#include "costdsl/costdsl.hpp"
#include "costdsl/ops/moe/dispatch_combine.hpp"
#include "costdsl/ops/moe/routing.hpp"
#include "costdsl/worklets/moe_shared_expert.hpp"

#include "batches.hpp"

using namespace costdsl;
using namespace costdsl::archs;
namespace moe = costdsl::ops::moe;

using moe_test::Batches;
using moe_test::roofline_h200;

TEST_CASE("routing: sums preserved, uniform exact, the cap holds, skew loads the busiest rank") {
  for (std::uint64_t tokens : {0ull, 1ull, 3ull, 100ull, 4160ull}) {
    for (double s : {0.0, 0.5, 1.0, 2.5}) {
      for (auto p : {moe::Placement::strided, moe::Placement::contiguous}) {
        const moe::EpLoad l = moe::route(tokens, 128, 8, 8, {s, p});
        CHECK(l.total_rows() == tokens * 8);
        std::array<std::uint32_t, 128> rows{};
        moe::expert_rows(tokens, 8, {s, p}, rows);
        CHECK(std::accumulate(rows.begin(), rows.end(), std::uint64_t{0}) == tokens * 8);
        CHECK(*std::max_element(rows.begin(), rows.end()) <= tokens);  // a token picks an expert once
        CHECK(rows[0] >= rows[127]);  // popularity order
        for (const auto& r : l.used()) CHECK(r.active_experts <= std::min<std::uint64_t>(r.rows, 16));
      }
    }
  }
  // Uniform: 1024 tokens · 8 = 8192 rows = 64 per expert, 1024 per rank, every expert active.
  const moe::EpLoad u = moe::route(1024, 128, 8, 8, {});
  for (const auto& r : u.used()) CHECK(r == moe::RankLoad{1024, 16});
  // One decode token: its 8 assignments land on 8 distinct experts.
  const moe::EpLoad one = moe::route(1, 128, 8, 8, {});
  for (const auto& r : one.used()) CHECK(r == moe::RankLoad{1, 1});
  // Skew raises the busiest rank above the mean; contiguous placement is the worst case.
  const std::uint32_t mean = 1024;
  const moe::EpLoad zipf = moe::route(1024, 128, 8, 8, {1.0, moe::Placement::strided});
  const moe::EpLoad packed = moe::route(1024, 128, 8, 8, {1.0, moe::Placement::contiguous});
  CHECK(zipf.max_rows() > mean);
  CHECK(packed.max_rows() > zipf.max_rows());
  CHECK(moe::route(1024, 128, 8, 8, {2.0, moe::Placement::contiguous}).max_rows() > packed.max_rows());
  // Strided, a saturating skew rebalances: the 8 capped hottest experts sit on 8 distinct ranks.
  CHECK(moe::route(1024, 128, 8, 8, {2.0}).max_rows() < zipf.max_rows());
  // Extreme skew saturates: the 8 hottest experts take every token, the rest nothing.
  std::array<std::uint32_t, 128> rows{};
  moe::expert_rows(100, 8, {50.0}, rows);
  for (std::size_t i = 0; i < 128; ++i) CHECK(rows[i] == (i < 8 ? 100u : 0u));
  CHECK_THROWS_AS(moe::route(10, 128, 8, 3, {}), InputError);
  CHECK_THROWS_AS(moe::route(10, 128, 8, 8, {-1.0}), InputError);
}

TEST_CASE("routing: uniform gating per rank in closed form equals the per-expert walk") {
  for (const moe::Placement placement : {moe::Placement::strided, moe::Placement::contiguous})
    for (const std::uint32_t experts : {8u, 60u, 128u, 256u})
      for (const std::uint32_t ep : {1u, 2u, 4u, 8u, 32u}) {
        if (experts % ep != 0) continue;
        for (const std::uint32_t top_k : {1u, 2u, 8u})
          for (const std::uint64_t tokens : {0ull, 1ull, 3ull, 7ull, 100ull, 4160ull, 65537ull}) {
            const moe::Routing r{0.0, placement};
            std::vector<std::uint32_t> rows(experts);
            moe::expert_rows(tokens, top_k, r, rows);
            std::vector<moe::RankLoad> walk(ep);
            std::vector<double> hits(ep);
            for (std::uint32_t i = 0; i < experts; ++i) {
              const std::uint32_t rank = placement == moe::Placement::strided ? i % ep : i / (experts / ep);
              walk[rank].rows += rows[i];
              hits[rank] += moe::detail::hit(double(tokens * top_k) / experts, tokens);  // each expert's share
            }
            for (std::uint32_t k = 0; k < ep; ++k)
              walk[k].active_experts = moe::detail::active(hits[k], walk[k].rows, experts / ep);
            const moe::EpLoad load = moe::route(tokens, experts, top_k, ep, r);
            REQUIRE(load.ranks == ep);
            for (std::uint32_t k = 0; k < ep; ++k) CHECK(load.rank[k] == walk[k]);
          }
      }
}

TEST_CASE("routing: the active experts are those tokens choosing on their own expect to reach") {
  // 16 tokens, each picking 4 distinct experts of 128 at random: 64 rows on about
  // 128 · (1 - (1 - 4/128)^16) = 51 experts, not on 64 (a perfect deal).
  const moe::EpLoad d = moe::route(16, 128, 4, 1, {});
  CHECK(d.rank[0].rows == 64);
  CHECK(d.rank[0].active_experts == 51);
  std::mt19937 gen(7);
  double distinct = 0;
  const int trials = 4000;
  for (int t = 0; t < trials; ++t) {
    std::array<bool, 128> hit{};
    for (int token = 0; token < 16; ++token) {
      std::array<int, 128> ids;
      std::iota(ids.begin(), ids.end(), 0);
      for (int j = 0; j < 4; ++j) {  // a partial shuffle: 4 distinct experts
        std::uniform_int_distribution<int> pick(j, 127);
        std::swap(ids[j], ids[pick(gen)]);
        hit[ids[j]] = true;
      }
    }
    distinct += std::count(hit.begin(), hit.end(), true);
  }
  CHECK(distinct / trials == doctest::Approx(50.98).epsilon(0.01));
  // Split over EP 8, each rank expects its share; a batch that fills every expert many
  // times over runs all of them; one token its top_k.
  for (const auto& r : moe::route(16, 128, 4, 8, {}).used()) CHECK((r.rows == 8 && r.active_experts == 6));
  for (const auto& r : moe::route(4096, 128, 4, 8, {}).used()) CHECK(r.active_experts == 16);
  CHECK(moe::route(1, 128, 4, 1, {}).rank[0].active_experts == 4);
  // Skewed gating concentrates the rows: fewer experts than the uniform batch reaches.
  CHECK(moe::route(16, 128, 4, 1, {1.0}).rank[0].active_experts < 51);
}

TEST_CASE("routing: a rank's active-expert count rounds as llround does, halves away from zero") {
  // Exact halves, the doubles either side of them, integers, and random counts.
  std::vector<double> xs{0.0, -0.0, 0.25, 0.5, 1.0, 1.5, 2.5, 255.5, 4294967294.5};
  for (const double h : {0.5, 1.5, 2.5, 7.5, 31.5, 255.5}) {
    xs.push_back(std::nextafter(h, 0.0));
    xs.push_back(std::nextafter(h, 1e9));
  }
  std::mt19937_64 gen(11);
  std::uniform_real_distribution<double> u(0.0, 512.0);
  for (int i = 0; i < 10000; ++i) xs.push_back(u(gen));
  for (const double x : xs) {
    CAPTURE(x);
    CHECK(moe::detail::round_count(x) == static_cast<std::uint32_t>(std::llround(x)));
  }
  CHECK(moe::detail::round_count(-0.7) == 0);  // not a count: none, never a wrapped one
}

TEST_CASE("routing into a kept buffer: the same arguments keep its load, any other argument re-routes it") {
  // One buffer taken through a sequence of calls, as an arch's scratch is from iteration
  // to iteration, always holds what a fresh route() of the same arguments gives.
  struct Call {
    std::uint64_t tokens;
    std::uint32_t experts, top_k, ep;
    moe::Routing routing;
  };
  const std::vector<Call> calls{{64, 256, 8, 32, {}},        {64, 256, 8, 32, {}},
                                {65, 256, 8, 32, {}},        {65, 256, 8, 16, {}},
                                {65, 128, 8, 16, {}},        {65, 128, 4, 16, {}},
                                {65, 128, 4, 16, {1.0}},     {65, 128, 4, 16, {1.0}},
                                {65, 128, 4, 16, {1.0, moe::Placement::contiguous}},
                                {0, 128, 4, 16, {}},         {4096, 256, 8, 8, {0.5}},
                                {64, 256, 8, 32, {}}};
  moe::EpLoad kept;
  for (const Call& c : calls) {
    CAPTURE(c.tokens);
    CAPTURE(c.ep);
    moe::route_into(c.tokens, c.experts, c.top_k, c.ep, c.routing, kept);
    const moe::EpLoad fresh = moe::route(c.tokens, c.experts, c.top_k, c.ep, c.routing);
    REQUIRE(kept.ranks == fresh.ranks);
    for (std::uint32_t r = 0; r < fresh.ranks; ++r) CHECK(kept.rank[r] == fresh.rank[r]);
  }
  // A bad call throws whatever the buffer held, and leaves no routing to reuse: the next
  // call routes afresh.
  CHECK_THROWS_AS(moe::route_into(64, 256, 8, 3, {}, kept), InputError);   // ep does not divide
  CHECK_THROWS_AS(moe::route_into(64, 256, 300, 32, {}, kept), InputError);  // top_k > experts
  CHECK_FALSE(kept.routed.valid);
  moe::route_into(64, 256, 8, 32, {}, kept);
  CHECK(kept.routed.valid);
  CHECK(kept.rank[0] == moe::route(64, 256, 8, 32, {}).rank[0]);
}

TEST_CASE("dispatch and combine mirror each other and follow the busiest ranks") {
  const moe::EpLoad l = moe::route(4160, 128, 8, 8, {1.0});
  const std::uint64_t row = 4096 * 2;
  const moe::A2aSizes a = moe::a2a_sizes(1024, 8, l, row);
  CHECK(a.dispatch.send_bytes == 1024ull * 8 * row);
  CHECK(a.dispatch.recv_bytes == std::uint64_t(l.max_rows()) * row);
  CHECK(a.combine.send_bytes == a.dispatch.recv_bytes);
  CHECK(a.combine.recv_bytes == a.dispatch.send_bytes);
}

// An experts slot as the Max algebra folds its ranks: the time of the slowest rank's
// launch, the work of all of them.
void check_experts_slot(const Metrics& slot, const moe::EpLoad& load, const Kernel<kernels::FusedMoe>& experts) {
  double slowest = 0, flops = 0;
  for (const auto& r : load.used()) {
    const Metrics m = experts.eval({r.rows, r.active_experts});
    slowest = std::max(slowest, m.time_s);
    flops += m.flops;
  }
  CHECK(slot.time_s == slowest);
  CHECK(slot.flops == flops);
}

TEST_CASE("expert slots are Max-folded over ranks: time of the slowest, work of all") {
  using Form = Fixed<deploy(qwen3_235b_a22b, {.tp = 1, .ep = 8})>;
  const worklets::MoeExpertEp<Form> w{Form{}};
  constexpr auto rr = worklets::MoeExpertEp<Form>::resolve_config(Form{});
  static_assert(decltype(rr.experts_per_rank)::is_static);
  static_assert(rr.experts_per_rank.value() == 16);
  // dispatch, the fused experts, combine, the top-k sum after the combine; and the all-reduce
  // that replaces the three where every rank holds every token (zero here).
  const auto tree = w.build(roofline_h200());
  static_assert(n_slots<decltype(tree)> == 5);
  std::array<Metrics, 5> row{};
  const moe::Routing skew{1.0};
  evaluate(tree, w.inputs({4160, 520, skew}), row);
  check_experts_slot(row[1], moe::route(4160, 128, 8, 8, skew),
                     Kernel<kernels::FusedMoe>(roofline_h200(), {Dtype::bf16, 4096, 1536, 16, 8, Dtype::bf16, ExpertLoad::balanced}));
  // gate/up + down = 6·rows·hidden·intermediate, SiLU·mul 4·rows·intermediate, over every routed row.
  CHECK(row[1].flops == 6.0 * 4160 * 8 * 4096 * 1536 + 4.0 * 4160 * 8 * 1536);
  // The top-k sum after the combine: the busiest source rank's 520 tokens, 8 rows each.
  CHECK(row[3].flops == kernels::MoeSum::flops({Dtype::bf16, 4096, 8}, {520}));
  CHECK(row[3].time_s > 0);
  CHECK(row[4] == Metrics{});
  // Over replicated tokens (one attention group over the 8 ranks): the same expert loads, no
  // all-to-all or moe_sum, one all-reduce of every token's hidden-wide partial sum.
  const worklets::MoeExpertEp<Form> over_replicated{Form{}, true};
  std::array<Metrics, 5> rep{};
  evaluate(over_replicated.build(roofline_h200()), over_replicated.inputs({4160, 520, skew}), rep);
  CHECK(rep[1] == row[1]);
  CHECK(rep[0] == Metrics{});
  CHECK(rep[2] == Metrics{});
  CHECK(rep[3] == Metrics{});
  const Kernel<kernels::AllReduce> all_reduce(roofline_h200(), {8});
  const Metrics expected = all_reduce.eval({4160ull * 4096 * 2});
  CHECK(rep[4].time_s == expected.time_s);
  CHECK(rep[4].bytes == expected.bytes);
  CHECK(rep[4].time_s > 0);
  const nlohmann::json j = to_json(make_manifest(tree));
  CHECK(j["slots"][0]["name"] == "moe.dispatch");
  CHECK(j["slots"][1]["name"] == "moe.experts");
  CHECK(j["slots"][1]["kind"] == "fused_moe");
  CHECK(j["slots"][1]["config"]["num_experts"]["formula"] == "num_experts/ep");
  CHECK(j["slots"][1]["config"]["moe_intermediate"]["value"] == 1536);
  CHECK(j["slots"][3]["kind"] == "moe_sum");
  // ep 1 degenerates to the local shape: the fused module alone (it sums its own top-k).
  using Local = Fixed<deploy(qwen3_30b_a3b)>;
  static_assert(n_slots<decltype(worklets::MoeExpertEp<Local>{Local{}}.build(roofline_h200()))> == 1);
}

TEST_CASE("the balanced view folds the expert slot's ranks with their mean: routing skew shows as imbalance") {
  using Form = Fixed<deploy(qwen3_235b_a22b, {.tp = 1, .ep = 8})>;
  const worklets::MoeExpertEp<Form> w{Form{}};
  const auto tree = w.build(roofline_h200());
  const Kernel<kernels::FusedMoe> experts(roofline_h200(), {Dtype::bf16, 4096, 1536, 16, 8, Dtype::bf16, ExpertLoad::balanced});
  const moe::Routing skew{1.0};
  double slowest = 0, rank_sum = 0;
  for (const auto& r : moe::route(4160, 128, 8, 8, skew).used()) {
    const double t = experts.eval<Quantities::time_and_work>({r.rows, r.active_experts}).time_s;
    slowest = std::max(slowest, t);
    rank_sum += t;
  }
  REQUIRE(slowest > 1.2 * rank_sum / 8);  // the skew loads one rank well above the mean
  const Metrics total = evaluate(tree, w.inputs({4160, 520, skew}));
  const Metrics balanced = evaluate_balanced(tree, w.inputs({4160, 520, skew}));
  // Only the experts slot has ranks of its own: the rest of the section is the same.
  CHECK(total.time_s - balanced.time_s == doctest::Approx(slowest - rank_sum / 8).epsilon(1e-9));
  CHECK(balanced.flops == total.flops);
  // Uniform routing: every rank alike, nothing to rebalance.
  CHECK(evaluate_balanced(tree, w.inputs({4160, 520, {}})).time_s == evaluate(tree, w.inputs({4160, 520, {}})).time_s);
}

TEST_CASE("experts split both ways (moe_tp): ep / moe_tp groups of moe_tp-th-wide experts, one all-reduce") {
  // Qwen3-235B over 8 GPUs of one attention group, each expert's width split 2 ways: 4 groups
  // of 2 GPUs hold 32 experts each, every GPU a 768-wide half of each of them.
  Qwen3MoeConfig c = deploy(qwen3_235b_a22b, {.tp = 8, .ep = 8});
  c.moe_tp = 2;
  const worklets::MoeExpertEp<Qwen3MoeConfig> w{c, true};
  const auto tree = w.build(roofline_h200());
  std::array<Metrics, 5> row{};
  const moe::Routing skew{1.0};
  evaluate(tree, w.inputs({4160, 520, skew}), row);
  check_experts_slot(row[1], moe::route(4160, 128, 8, 4, skew),  // routed over the 4 groups
                     Kernel<kernels::FusedMoe>(roofline_h200(), {Dtype::bf16, 4096, 768, 32, 8, Dtype::bf16, ExpertLoad::balanced}));
  // Half the width on each of a group's 2 GPUs: half the expert work of one group per GPU,
  // the same work over all 8 GPUs as whole experts on 8 ranks.
  CHECK(row[1].flops == doctest::Approx(0.5 * (6.0 * 4160 * 8 * 4096 * 1536 + 4.0 * 4160 * 8 * 1536)));
  const Kernel<kernels::AllReduce> all_reduce(roofline_h200(), {8});  // the partial sums over all 8 GPUs
  CHECK(row[4].time_s == all_reduce.eval({4160ull * 4096 * 2}).time_s);
  CHECK(row[0] == Metrics{});
  CHECK(row[2] == Metrics{});
  const nlohmann::json j = to_json(make_manifest(tree));
  CHECK(j["slots"][1]["config"]["moe_intermediate"]["value"] == 768);
  CHECK(j["slots"][1]["config"]["num_experts"]["value"] == 32);
  CHECK(make_manifest(tree).tree.labels()[0].find("moe_tp=2") != std::string::npos);
  // moe_tp 1 is the unsplit worklet, bit for bit.
  Qwen3MoeConfig whole = c;
  whole.moe_tp = 1;
  const worklets::MoeExpertEp<Qwen3MoeConfig> unsplit{whole, true};
  std::array<Metrics, 5> one{};
  evaluate(unsplit.build(roofline_h200()), unsplit.inputs({4160, 520, skew}), one);
  const worklets::MoeExpertEp<Fixed<deploy(qwen3_235b_a22b, {.tp = 8, .ep = 8})>> fixed{{}, true};
  std::array<Metrics, 5> st{};
  evaluate(fixed.build(roofline_h200()), fixed.inputs({4160, 520, skew}), st);
  CHECK(one == st);
  // The layouts it does not model are errors naming the rule.
  CHECK_THROWS_WITH_AS(worklets::MoeExpertEp<Qwen3MoeConfig>(c, false),
                       doctest::Contains("experts split both ways are modelled over one attention group"), ConfigError);
  c.moe_tp = 3;
  CHECK_THROWS_WITH_AS(worklets::MoeExpertEp<Qwen3MoeConfig>(c, true), "moe_tp 3 with ep 8: moe_tp must divide ep "
                       "(the GPUs the experts span)", ConfigError);
  c = deploy(qwen3_235b_a22b, {.tp = 1, .ep = 1});
  c.moe_tp = 2;
  CHECK_THROWS_WITH_AS(worklets::MoeExpertEp<Qwen3MoeConfig>(c, true), doctest::Contains("moe_tp must divide ep"),
                       ConfigError);
  // The frame: the same weights and KV per GPU as whole experts (a GPU holds twice the
  // experts at half the width), the experts split at attention DP 1 only.
  Qwen3MoeConfig frame = deploy(qwen3_235b_a22b, {.tp = 8, .ep = 8});
  const Qwen3Moe<Qwen3MoeConfig> base(frame);
  frame.moe_tp = 4;
  const Qwen3Moe<Qwen3MoeConfig> split(frame);
  CHECK(split.weight_bytes_per_gpu() == base.weight_bytes_per_gpu());
  CHECK(split.kv_bytes_per_token_per_gpu() == base.kv_bytes_per_token_per_gpu());
  frame = deploy(qwen3_235b_a22b, {.tp = 4, .ep = 8});  // 2 attention groups
  frame.moe_tp = 2;
  CHECK_THROWS_WITH_AS(Qwen3Moe<Qwen3MoeConfig>{frame}, doctest::Contains("one attention group"), ConfigError);
}

TEST_CASE("fused_moe: measured as one module, analytic as its grouped-GEMM decomposition") {
  const kernels::FusedMoe::Config c{Dtype::bf16, 4096, 1536, 16, 8, Dtype::bf16, ExpertLoad::balanced};
  const kernels::FusedMoe::Input in{1024, 0};
  const Roofline& rf = *roofline_h200().roofline();
  const Metrics m = kernels::FusedMoe::roofline(rf, c, in);
  const Metrics up = rf.grouped_gemm(1024, 2 * 1536, 4096, 16, Dtype::bf16, Dtype::bf16, Dtype::bf16);
  const Metrics act = rf.memory_bound(4.0 * 1024 * 1536, 2.0 * 3 * 1024 * 1536, ElementwiseKind::activation);
  const Metrics down = rf.grouped_gemm(1024, 4096, 1536, 16, Dtype::bf16, Dtype::bf16, Dtype::bf16);
  CHECK(m.time_s == doctest::Approx(up.time_s + act.time_s + down.time_s));
  // The decomposition's work: gate/up, SiLU·mul and down, each active expert's weights read once.
  CHECK(kernels::FusedMoe::flops(c, in) == 6.0 * 1024 * 4096 * 1536 + 4.0 * 1024 * 1536);
  CHECK(kernels::FusedMoe::bytes(c, in) ==
        doctest::Approx(2.0 * (1024 * 4096 + 16 * 3072.0 * 4096) + 2.0 * 1024 * 3072 + 2.0 * 3 * 1024 * 1536 +
                        2.0 * (1024 * 1536 + 16 * 4096.0 * 1536) + 2.0 * 1024 * 4096));
  // One decode token with top-8 over 16 local experts reads at most the rows' experts.
  CHECK(kernels::FusedMoe::active(c, {1, 0}) == 1);
  CHECK(kernels::FusedMoe::active(c, {8, 0}) == 8);
  CHECK_THROWS_WITH_AS(kernels::FusedMoe::active(c, {8, 9}),
                       "fused_moe: active_experts 9 exceeds min(rows 8, num_experts 16) = 8", InputError);
  CHECK(kernels::FusedMoe::roofline(rf, c, {0, 0}) == Metrics{});
  CHECK_THROWS_WITH_AS(Kernel<kernels::FusedMoe>(roofline_h200(), {Dtype::bf16, 4096, 1536, 0, 8, Dtype::bf16, ExpertLoad::balanced}),
                       "fused_moe: num_experts 0 must be in 1..16384", ConfigError);
  // moe_sum: read top_k rows and their fp32 weights, write one, per token.
  CHECK(kernels::MoeSum::bytes({Dtype::bf16, 4096, 8}, {10}) == 2.0 * 10 * 4096 * 9 + 4.0 * 10 * 8);
  CHECK(kernels::MoeSum::flops({Dtype::bf16, 4096, 8}, {10}) == 2.0 * 10 * 8 * 4096);
  CHECK_THROWS_WITH_AS(Kernel<kernels::MoeSum>(roofline_h200(), {Dtype::bf16, 4096, 0}),
                       "moe_sum: top_k 0 must be in 1..1024", ConfigError);
}

TEST_CASE("partition checks: ep % tp, num_experts % ep, kv heads dividing tp; messages name fields and values") {
  CHECK_THROWS_WITH_AS((Qwen3Moe<Qwen3MoeConfig>(deploy(qwen3_235b_a22b, {.tp = 3, .ep = 8}))), "tp 3 does not divide ep 8",
                       ConfigError);
  CHECK_THROWS_WITH_AS((Qwen3Moe<Qwen3MoeConfig>(deploy(qwen3_235b_a22b, {.tp = 2, .ep = 12}))),
                       "ep 12 does not divide num_experts 128", ConfigError);
  // Above its 4 KV heads attention copies them (as the frameworks do): 8 ranks of one head each.
  CHECK_THROWS_WITH_AS((Qwen3Moe<Qwen3MoeConfig>(deploy(qwen3_235b_a22b, {.tp = 6, .ep = 6}))),
                       "num_kv_heads 4 does not divide tp 6", ConfigError);
  const Qwen3Moe<Qwen3MoeConfig> tp8(deploy(qwen3_235b_a22b, {.tp = 8, .ep = 8}));
  CHECK(tp8.resolved().dp == 1);
  CHECK(tp8.kv_bytes_per_token_per_gpu() == tp8.kv_bytes_per_token() / 4);  // 1 of 4 heads a rank, not 1/8 of them
  CHECK(to_json(make_manifest(tp8.build(roofline_h200())))["node_labels"].dump().find("kv/rank=1") != std::string::npos);
  CHECK_THROWS_AS((Qwen3Moe<Qwen3MoeConfig>(deploy(qwen3_235b_a22b, {.tp = 0, .ep = 8}))), ConfigError);
  CHECK_THROWS_WITH_AS((Qwen3Moe<Qwen3MoeConfig>(deploy(qwen3_235b_a22b, {.tp = 1, .ep = 512}))),
                       "ep may not exceed the routing capacity: ep 512 exceeds max_ep 256", ConfigError);
  // Valid ones resolve dp = ep / tp.
  static_assert(Qwen3Moe<Fixed<deploy(qwen3_235b_a22b, {.tp = 4, .ep = 8})>>::resolve_config({}).dp == 2);
  CHECK(Qwen3Moe<Qwen3MoeConfig>(deploy(qwen3_235b_a22b, {.tp = 1, .ep = 8})).resolved().dp == 8);
  // A batch list that does not match dp is an input error.
  const Qwen3Moe<Qwen3MoeConfig> arch(deploy(qwen3_235b_a22b, {.tp = 4, .ep = 8}));
  const Batches b(1);
  CHECK_THROWS_AS(arch.inputs(b.it()), InputError);
}

TEST_CASE("a shared expert composes as a Parallel side stream next to the routed experts") {
  struct DsForm {  // the fields a DeepSeek-style arch exposes
    COSTDSL_FIELDS((std::uint32_t, hidden), (std::uint32_t, moe_intermediate),
                   (std::uint32_t, shared_intermediate), (std::uint32_t, num_experts),
                   (std::uint32_t, top_k), (std::uint32_t, ep), (Dtype, dtype));
  };
  using Form = Fixed<DsForm{7168, 2048, 2048, 256, 8, 8, Dtype::bf16}>;
  const worklets::MoeExpertEp<Form> routed{Form{}};
  const worklets::MoeSharedExpert<Form> shared{Form{}};
  const auto tree = parallel(Ratio<9, 10>{}, routed.build(roofline_h200()), shared.build(roofline_h200()));
  static_assert(n_slots<decltype(tree)> == 5 + 3);
  const auto in = costdsl::inputs(routed.inputs({2048, 256, {}}), shared.inputs({256}));
  const Metrics both = evaluate(tree, in);
  const Metrics a = evaluate(routed.build(roofline_h200()), routed.inputs({2048, 256, {}}));
  const Metrics b = evaluate(shared.build(roofline_h200()), shared.inputs({256}));
  CHECK(both.time_s == doctest::Approx(std::max(a.time_s, b.time_s) / 0.9));
  CHECK(both.flops == a.flops + b.flops);
}

TEST_CASE("shipped config.json files agree with the presets; KV and weights per GPU") {
  auto load = [](const char* name, std::uint32_t tp, std::uint32_t ep) {
    return Qwen3MoeConfig::from_hf(load_hf_config(default_data_dir() / "models" / name), {.tp = tp, .ep = ep});
  };
  auto same = [](const Qwen3MoeConfig& a, const Qwen3MoeConfig& b) {
    return a.hidden == b.hidden && a.num_qo_heads == b.num_qo_heads && a.num_kv_heads == b.num_kv_heads &&
           a.head_dim == b.head_dim && a.moe_intermediate == b.moe_intermediate && a.num_experts == b.num_experts &&
           a.top_k == b.top_k && a.vocab == b.vocab && a.num_layers == b.num_layers && a.tp == b.tp && a.ep == b.ep &&
           a.dtype == b.dtype;
  };
  CHECK(same(load("qwen3_30b_a3b.json", 1, 1), deploy(qwen3_30b_a3b)));
  CHECK(same(load("qwen3_235b_a22b.json", 4, 8), deploy(qwen3_235b_a22b, {.tp = 4, .ep = 8})));
  CHECK_THROWS_WITH_AS(Qwen3MoeConfig::from_hf(parse_hf_config(R"({"decoder_sparse_step": 2})", "x.json"), {.tp = 1, .ep = 1}),
                       "x.json: decoder_sparse_step 2 is not 1; Qwen3Moe models every layer as MoE", DataError);
  const Qwen3Moe<Fixed<deploy(qwen3_235b_a22b)>> one;
  CHECK(one.kv_bytes_per_token() == 2.0 * 4 * 128 * 2 * 94);
  // About 235 B parameters in all; at ep 8 each GPU holds 1/8 of the experts.
  CHECK(one.weight_bytes_per_gpu() / 2 == doctest::Approx(235.1e9).epsilon(0.01));
  const Qwen3Moe<Fixed<deploy(qwen3_235b_a22b, {.tp = 4, .ep = 8})>> eight;
  CHECK(eight.weight_bytes_per_gpu() / 2 < 40e9);
}
