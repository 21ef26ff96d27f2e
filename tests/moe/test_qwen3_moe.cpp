#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <numeric>
#include <vector>

#include "costdsl/archs/dispatch.hpp"
#include "costdsl/archs/qwen3_moe.hpp"
#include "costdsl/ops/moe/dispatch_combine.hpp"
#include "costdsl/ops/moe/routing.hpp"
#include "costdsl/worklets/moe_shared_expert.hpp"

#include "batches.hpp"

using namespace costdsl;
using namespace costdsl::archs;
namespace moe = costdsl::ops::moe;

using moe_test::Batches;
using moe_test::roofline_h200;

TEST_CASE("with_dp maps a run-time degree onto the static ones") {
  const Batches b(2);
  const Qwen3MoeConfig cfg = qwen3_235b_a22b.with_parallel(4, 8);
  // Each supported degree is a whole tree instantiation: keep the set small here.
  const Metrics m = with_dp<1, 2>(cfg.ep / cfg.tp, [&]<std::size_t DP>() {
    const Qwen3Moe<Qwen3MoeConfig, DP> arch(cfg);
    return evaluate(arch.build(roofline_h200()), arch.inputs(b.it()));
  });
  const Qwen3Moe<Fixed<qwen3_235b_a22b.with_parallel(4, 8)>, 2> s;
  CHECK(m == evaluate(s.build(roofline_h200()), s.inputs(b.it())));
  std::size_t seen = 0;
  with_dp<1, 2, 4>(4, [&]<std::size_t DP>() { seen = DP; });
  CHECK(seen == 4);
  CHECK_THROWS_WITH_AS((with_dp<1, 2, 4, 8, 16>(3, [&]<std::size_t DP>() { return DP; })),
                       "dp 3 is not a supported DP degree (supported: 1, 2, 4, 8, 16)", ConfigError);
}

TEST_CASE("Qwen3-MoE: static and run-time forms agree (235B at tp 4 / ep 8, 30B at tp 1 / ep 4)") {
  const Timing& t = roofline_h200();
  {  // tp 4, ep 8, dp 2: identical shapes, so identical manifests.
    const Qwen3Moe<Fixed<qwen3_235b_a22b.with_parallel(4, 8)>, 2> s;
    const Qwen3Moe<Qwen3MoeConfig, 2> r(qwen3_235b_a22b.with_parallel(4, 8));
    const auto st = s.build(t);
    const auto rt = r.build(t);
    for (double skew : {0.0, 1.2}) {
      const Batches b(2);
      CHECK(evaluate(st, s.inputs(b.it({skew}))) == evaluate(rt, r.inputs(b.it({skew}))));
    }
    CHECK(to_json(make_manifest(st)) == to_json(make_manifest(rt)));
  }
  {  // tp 1, ep 4, dp 4: the run-time form keeps each group's gated all-reduce (zero), the static one drops it.
    // (dp 8 works the same but its tree costs minutes of compile time: see bench/README.md.)
    const Qwen3Moe<Fixed<qwen3_30b_a3b.with_parallel(1, 4)>, 4> s;
    const Qwen3Moe<Qwen3MoeConfig, 4> r(qwen3_30b_a3b.with_parallel(1, 4));
    const auto st = s.build(t);
    const auto rt = r.build(t);
    static_assert(n_slots<decltype(rt)> == n_slots<decltype(st)> + 4);
    for (double skew : {0.0, 1.2}) {
      const Batches b(4);
      CHECK(evaluate(st, s.inputs(b.it({skew}))) == evaluate(rt, r.inputs(b.it({skew}))));
    }
    nlohmann::json rs = to_json(make_manifest(rt))["slots"], kept = nlohmann::json::array();
    for (const auto& slot : rs)
      if (slot["kind"] != "all_reduce") kept.push_back(slot);
    CHECK(kept == to_json(make_manifest(st))["slots"]);
  }
}

TEST_CASE("slot count is independent of the batch and the routing") {
  const Qwen3Moe<Fixed<qwen3_235b_a22b.with_parallel(4, 8)>, 2> arch;
  const auto tree = arch.build(roofline_h200());
  using Tree = decltype(tree);
  // embed 2 + layer (2 × (attn 10 + router 2) + moe 5) + lm_head 2 × 2: the same for 1 token or 10^5.
  static_assert(n_slots<Tree> == 2 + 2 * 12 + 5 + 4);
  std::array<Metrics, n_slots<Tree>> small{}, big{};
  const Batches tiny(2, 1), large(2, 512);
  evaluate(tree, arch.inputs(tiny.it()), small);
  const Metrics m = evaluate(tree, arch.inputs(large.it({1.0})), big);
  CHECK(m.time_s > 0);
  CHECK(std::string(slot_paths<Tree>[26]) == "model.layer.moe.dispatch");
  CHECK(std::string(slot_paths<Tree>[27]) == "model.layer.moe.up_gate_proj");
  // The busiest DP group sets the attention time: group 0 holds the prefill.
  CHECK(big[8].time_s > 0);    // dp0.attn.prefill
  CHECK(big[20] == Metrics{});  // dp1.attn.prefill: no chunk there
}

TEST_CASE("plausible H200 iteration times: one 4096-token prefill chunk + 64 decodes at 2048 KV") {
  const Timing& t = roofline_h200();
  {  // Qwen3-30B-A3B on one H200.
    const Qwen3Moe<Fixed<qwen3_30b_a3b>, 1> arch;
    const Metrics m = evaluate(arch.build(t), arch.inputs(Batches(1).it()));
    MESSAGE("Qwen3-30B-A3B, 1 x H200: " << m.time_ms() << " ms");
    CHECK(m.time_ms() > 20);
    CHECK(m.time_ms() < 200);
    CHECK(has(m.coverage, Coverage::analytic));
  }
  {  // Qwen3-235B-A22B on 8 H200s at tp 4 / ep 8: the prefill on group 0, the decodes split.
    const Qwen3Moe<Fixed<qwen3_235b_a22b.with_parallel(4, 8)>, 2> arch;
    const auto tree = arch.build(t);
    const Batches b(2);
    const Metrics uniform = evaluate(tree, arch.inputs(b.it()));
    const Metrics skewed = evaluate(tree, arch.inputs(b.it({1.0})));
    MESSAGE("Qwen3-235B-A22B, tp 4 / ep 8: " << uniform.time_ms() << " ms uniform, " << skewed.time_ms()
                                             << " ms at exponent 1");
    CHECK(uniform.time_ms() > 30);
    CHECK(uniform.time_ms() < 400);
    CHECK(skewed.time_s > uniform.time_s);  // imbalance costs time...
    CHECK(skewed.flops == uniform.flops);   // ...not work
  }
}

