// The Mixtral family (top-2 of 8, DP attention + EP experts, or TP attention + TP experts)
// for the CLI: its run-time forms, instantiated here once.
#include "../family.hpp"
#include "../model_impl.hpp"
#include "costdsl/archs/mixtral.hpp"

namespace costdsl::cli::models {

using Mixtral = archs::Mixtral<archs::MixtralConfig>;
using MixtralTpExperts = archs::Mixtral<archs::MixtralConfig, worklets::ExpertGrain::tp>;

std::unique_ptr<Model> open_mixtral(const HfConfig& config, const ModelOptions& options, const Timing* timing) {
  const archs::MixtralConfig c =
      archs::MixtralConfig::from_hf(config, options.tp, options.expert_parallel());
  const ops::moe::Routing routing{options.routing_skew};
  return tp_experts(c) ? open<MixtralTpExperts>(c, timing, routing) : open<Mixtral>(c, timing, routing);
}

std::unique_ptr<serve::ModelSource> mixtral_source(const HfConfig& config, const Timing& timing,
                                                   ops::moe::Routing routing, bool) {
  return source(
      [config](serve::Parallel p) {
        return by_expert_grain<Mixtral, MixtralTpExperts>(archs::MixtralConfig::from_hf(config, p.tp, p.ep));
      },
      true, timing, routing);
}

COSTDSL_CLI_FAMILY(mixtral){.name = "mixtral",
                            .architectures = {"MixtralForCausalLM"},
                            .model_types = {"mixtral"},
                            .expert_parallel = true,
                            .kv_parallel = false,
                            .open = open_mixtral,
                            .source = mixtral_source};

}  // namespace costdsl::cli::models
