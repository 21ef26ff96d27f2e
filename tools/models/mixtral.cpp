// The Mixtral family (DP attention, EP experts, top-2 of 8) for the CLI: its run-time
// form, instantiated here once.
#include "../model_impl.hpp"
#include "costdsl/archs/mixtral.hpp"

namespace costdsl::cli::models {

using Mixtral = archs::Mixtral<archs::MixtralConfig>;

std::unique_ptr<Model> open_mixtral(const HfConfig& config, const ModelOptions& options, const Timing* timing) {
  return open<Mixtral>(
      options.with_dtype(archs::MixtralConfig::from_hf(config, options.tp, options.expert_parallel())), timing,
      ops::moe::Routing{options.routing_skew});
}

std::unique_ptr<serve::ModelSource> mixtral_source(const HfConfig& config, const Timing& timing,
                                                   ops::moe::Routing routing) {
  return source([config](serve::Parallel p) { return Mixtral(archs::MixtralConfig::from_hf(config, p.tp, p.ep)); },
                true, timing, routing);
}

}  // namespace costdsl::cli::models
