// The DeepSeek-V3 family (MLA, dense then MoE layers, shared expert on a side stream)
// for the CLI: its run-time form, instantiated here once.
#include "../model_impl.hpp"
#include "costdsl/archs/deepseek_v3.hpp"

namespace costdsl::cli::models {

using DeepseekV3 = archs::DeepseekV3<archs::DeepseekV3Config>;

std::unique_ptr<Model> open_deepseek_v3(const HfConfig& config, const ModelOptions& options, const Timing* timing) {
  if (options.hp != 1)
    throw InputError("--hp " + std::to_string(options.hp) +
                     ": deepseek_v3 archs do not take KV-parallel attention yet (hp must be 1; llama archs take it)");
  return open<DeepseekV3>(
      options.with_dtype(archs::DeepseekV3Config::from_hf(config, options.tp, options.expert_parallel())), timing,
      ops::moe::Routing{options.routing_skew});
}

std::unique_ptr<serve::ModelSource> deepseek_v3_source(const HfConfig& config, const Timing& timing,
                                                       ops::moe::Routing routing) {
  return source(
      [config](serve::Parallel p) { return DeepseekV3(archs::DeepseekV3Config::from_hf(config, p.tp, p.ep)); }, true,
      timing, routing);
}

}  // namespace costdsl::cli::models
