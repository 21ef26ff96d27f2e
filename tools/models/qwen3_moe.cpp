// The Qwen3-MoE family (DP attention, EP experts) for the CLI: its run-time form,
// instantiated here once.
#include "../model_impl.hpp"
#include "costdsl/archs/qwen3_moe.hpp"

namespace costdsl::cli::models {

std::unique_ptr<Model> open_qwen3_moe(const HfConfig& config, const ModelOptions& options, const Timing* timing) {
  return open<archs::Qwen3Moe<archs::Qwen3MoeConfig>>(
      options.with_dtype(archs::Qwen3MoeConfig::from_hf(config, options.tp, options.expert_parallel())), timing,
      ops::moe::Routing{options.routing_skew});
}

}  // namespace costdsl::cli::models
