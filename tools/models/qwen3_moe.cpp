// The Qwen3-MoE family (DP attention, EP experts) for the CLI: its run-time form,
// instantiated here once.
#include "../model_impl.hpp"
#include "costdsl/archs/qwen3_moe.hpp"

namespace costdsl::cli::models {

using Qwen3Moe = archs::Qwen3Moe<archs::Qwen3MoeConfig>;

std::unique_ptr<Model> open_qwen3_moe(const HfConfig& config, const ModelOptions& options, const Timing* timing) {
  return open<Qwen3Moe>(
      archs::Qwen3MoeConfig::from_hf(config, options.tp, options.expert_parallel()), timing,
      ops::moe::Routing{options.routing_skew});
}

std::unique_ptr<serve::ModelSource> qwen3_moe_source(const HfConfig& config, const Timing& timing,
                                                     ops::moe::Routing routing) {
  return source([config](serve::Parallel p) { return Qwen3Moe(archs::Qwen3MoeConfig::from_hf(config, p.tp, p.ep)); },
                true, timing, routing);
}

}  // namespace costdsl::cli::models
