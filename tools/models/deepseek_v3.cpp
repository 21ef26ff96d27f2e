// The DeepSeek-V3 family (MLA, dense then MoE layers, shared expert on a side stream)
// for the CLI: its run-time form, instantiated here once.
#include "../model_impl.hpp"
#include "costdsl/archs/deepseek_v3.hpp"

namespace costdsl::cli::models {

std::unique_ptr<Model> open_deepseek_v3(const HfConfig& config, const ModelOptions& options, const Timing* timing) {
  return open<archs::DeepseekV3<archs::DeepseekV3Config>>(
      options.with_dtype(archs::DeepseekV3Config::from_hf(config, options.tp, options.expert_parallel())), timing,
      ops::moe::Routing{options.routing_skew});
}

}  // namespace costdsl::cli::models
