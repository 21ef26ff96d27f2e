// The Qwen3-MoE family (DP attention, EP experts) for the CLI: its run-time form,
// instantiated here once.
#include "../model_impl.hpp"
#include "costdsl/archs/qwen3_moe.hpp"

namespace costdsl::cli::models {

using Qwen3Moe = archs::Qwen3Moe<archs::Qwen3MoeConfig>;

std::unique_ptr<Model> open_qwen3_moe(const HfConfig& config, const ModelOptions& options, const Timing* timing) {
  if (options.hp != 1)
    throw InputError("--hp " + std::to_string(options.hp) +
                     ": qwen3_moe archs do not take KV-parallel attention yet (hp must be 1; llama archs take it)");
  return open<Qwen3Moe>(
      options.with_dtype(archs::Qwen3MoeConfig::from_hf(config, options.tp, options.expert_parallel())), timing,
      ops::moe::Routing{options.routing_skew});
}

std::unique_ptr<serve::ModelSource> qwen3_moe_source(const HfConfig& config, const Timing& timing,
                                                     ops::moe::Routing routing) {
  return source([config](serve::Parallel p) { return Qwen3Moe(archs::Qwen3MoeConfig::from_hf(config, p.tp, p.ep)); },
                true, timing, routing);
}

}  // namespace costdsl::cli::models
