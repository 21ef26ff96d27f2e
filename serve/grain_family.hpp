#pragma once
// GrainFamily: a dense family whose workers come in two attention grains, two arch types
// (worklets/attn_grain.hpp): hp 1 workers are the tp arch, hp > 1 workers the hptp arch.
// Each keeps its own tree, so an hp 1 worker evaluates exactly today's tp tree; the
// planner tries hp > 1 (as decode workers) only for a source that says kv_parallel().
//
//   serve::GrainFamily family(
//       [&](serve::Parallel p) { return archs::Llama3<archs::Llama3Config>(from_hf(hf, p.tp, p.hp)); },
//       [&](serve::Parallel p) { return archs::Llama3<archs::Llama3Config, archs::AttnGrain::hptp>(...); }, timing);
#include <optional>
#include <string>
#include <utility>

#include "costdsl/serve/arch_family.hpp"
#include "costdsl/serve/model_source.hpp"
#include "costdsl/serve/parallel.hpp"
#include "costdsl/timing.hpp"

namespace costdsl::serve {

template <class MakeTp, class MakeHptp>
class GrainFamily final : public ModelSource {
 public:
  GrainFamily(MakeTp tp, MakeHptp hptp, const Timing& timing)
      : tp_(std::move(tp), false, timing), hptp_(std::move(hptp), false, timing) {}

  bool expert_parallel() const override { return false; }
  bool kv_parallel() const override { return true; }
  std::optional<WorkerFacts> facts(Parallel p, std::string* why = nullptr) const override {
    return p.hp == 1 ? tp_.facts(p, why) : hptp_.facts(p, why);
  }
  AnyModel& model(Parallel p) override { return p.hp == 1 ? tp_.model(p) : hptp_.model(p); }

 private:
  ArchFamily<MakeTp> tp_;
  ArchFamily<MakeHptp> hptp_;
};

}  // namespace costdsl::serve
