#pragma once
// GrainFamily: a family whose workers come in two attention grains, two arch types
// (worklets/attn_grain.hpp): hp 1 workers are the tp arch, hp > 1 workers the KV-parallel
// one (GQA hptp; MLA hp). Each keeps its own tree, so an hp 1 worker evaluates exactly
// today's tp tree; the planner tries hp > 1 (as decode workers) only for a source that
// says kv_parallel(). A MoE family (expert_parallel) varies ep beside hp.
//
//   serve::GrainFamily family(
//       [&](serve::Parallel p) { return archs::Llama3<archs::Llama3Config>(archs::Llama3Config::from_hf(hf, p)); },
//       [&](serve::Parallel p) { return archs::Llama3<archs::Llama3Config, archs::AttnGrain::hptp>(...); },
//       false, timing);
#include <optional>
#include <string>
#include <utility>

#include "costdsl/ops/moe/routing.hpp"
#include "costdsl/serve/arch_family.hpp"
#include "costdsl/serve/model_source.hpp"
#include "costdsl/serve/parallel.hpp"
#include "costdsl/timing.hpp"

namespace costdsl::serve {

template <class MakeTp, class MakeHp>
class GrainFamily final : public ModelSource {
 public:
  GrainFamily(MakeTp tp, MakeHp hp, bool expert_parallel, const Timing& timing, ops::moe::Routing routing = {})
      : tp_(std::move(tp), expert_parallel, timing, routing), hp_(std::move(hp), expert_parallel, timing, routing) {}

  bool expert_parallel() const override { return tp_.expert_parallel(); }
  bool kv_parallel() const override { return true; }
  std::optional<WorkerFacts> facts(Parallel p, std::string* why = nullptr) const override {
    return p.hp == 1 ? tp_.facts(p, why) : hp_.facts(p, why);
  }
  AnyModel& model(Parallel p) override { return p.hp == 1 ? tp_.model(p) : hp_.model(p); }

 private:
  ArchFamily<MakeTp> tp_;
  ArchFamily<MakeHp> hp_;
};

}  // namespace costdsl::serve
