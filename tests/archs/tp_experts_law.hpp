#pragma once
// A law every MoE family with TP experts (ExpertGrain::tp) keeps, written once: the static
// form that ep 1 over tp > 1 picks the grain for equals its run-time twin (and keeps the
// feed law); each layer's experts section is the fused experts launch at
// moe_intermediate / tp and a tp all-reduce, with no all-to-all (the rows never leave their
// rank) and one DP group; and at tp 1 the TP grain is the EP grain at ep 1, launch for launch.
#include <doctest/doctest.h>

#include <initializer_list>
#include <map>
#include <string>
#include <string_view>

#include "costdsl/costdsl.hpp"
#include "../moe/batches.hpp"
#include "feed_law.hpp"

namespace arch_test {

// Static: the static arch at (tp N, ep 1), left to pick its grain; Runtime: the run-time
// arch built with ExpertGrain::tp; Ep: the run-time arch with the default (EP) grain.
// sharded: Runtime's config at (tp N, ep 1); one_gpu: at (tp 1, ep 1). experts: the dotted
// path of each layer kind's experts section ("model.layer.moe").
template <class Static, class Runtime, class Ep, class Config>
void check_tp_experts(const Config& sharded, const Config& one_gpu, std::initializer_list<std::string_view> experts) {
  using namespace costdsl;
  const costdsl::Timing& t = moe_test::roofline_h200();
  const Static s;
  const Runtime r(sharded);
  CHECK(s.resolved().dp == 1);
  CHECK(r.resolved().dp == 1);
  const Manifest m = make_manifest(r.build(t));
  std::map<std::string, const SlotDescription*> by_name;
  for (const SlotDescription& d : m.slots) by_name[d.name] = &d;
  const nlohmann::json j = to_json(m);
  for (const std::string_view section : experts) {
    const std::string at(section);
    REQUIRE(by_name.count(at + ".experts") == 1);
    CHECK(by_name.count(at + ".tp_allreduce") == 1);
    CHECK(by_name.count(at + ".dispatch") == 0);
    CHECK(by_name.count(at + ".combine") == 0);
    for (const auto& slot : j["slots"])
      if (slot["name"] == at + ".experts") {
        CHECK(slot["config"]["moe_intermediate"]["value"] == sharded.moe_intermediate / sharded.tp);
        CHECK(slot["config"]["num_experts"]["value"] == sharded.num_experts);
      }
  }
  CHECK(to_json(make_manifest(s.build(t))) == j);
  const moe_test::Batches one_group(1);
  const auto totals = check_feed_law(s, r, t, one_group.groups[0], ops::moe::Routing{1.2});
  CHECK(totals[0] == totals[1]);
  CHECK(totals[0].time_s > 0);
  // One GPU: both grains run every expert whole on it, the same launches.
  const Ep ep1(one_gpu);
  const Runtime tp1(one_gpu);
  CHECK(evaluate(ep1.build(t), ep1.inputs(one_group.it())) == evaluate(tp1.build(t), tp1.inputs(one_group.it())));
  CHECK(evaluate(ep1.build(t), ep1.inputs(one_group.it({1.2}))) ==
        evaluate(tp1.build(t), tp1.inputs(one_group.it({1.2}))));
  CHECK(ep1.weight_bytes_per_gpu() == tp1.weight_bytes_per_gpu());
  CHECK(ep1.kv_bytes_per_token_per_gpu() == tp1.kv_bytes_per_token_per_gpu());
}

}  // namespace arch_test
