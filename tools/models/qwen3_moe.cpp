// The Qwen3-MoE family (DP attention + EP experts, or TP attention + TP experts) for the
// CLI: its run-time forms, instantiated here once.
#include "../family.hpp"
#include "../model_impl.hpp"
#include "costdsl/archs/qwen3_moe.hpp"

namespace costdsl::cli::models {

using Qwen3Moe = archs::Qwen3Moe<archs::Qwen3MoeConfig>;
using Qwen3MoeTpExperts = archs::Qwen3Moe<archs::Qwen3MoeConfig, worklets::ExpertGrain::tp>;

std::unique_ptr<Model> open_qwen3_moe(const HfConfig& config, const ModelOptions& options, const Timing* timing) {
  const archs::Qwen3MoeConfig c = archs::Qwen3MoeConfig::from_hf(config, options.tp, options.expert_parallel());
  const ops::moe::Routing routing{options.routing_skew};
  return tp_experts(c) ? open<Qwen3MoeTpExperts>(c, timing, routing) : open<Qwen3Moe>(c, timing, routing);
}

std::unique_ptr<serve::ModelSource> qwen3_moe_source(const HfConfig& config, const Timing& timing,
                                                     ops::moe::Routing routing, bool) {
  return source(
      [config](serve::Parallel p) {
        return by_expert_grain<Qwen3Moe, Qwen3MoeTpExperts>(archs::Qwen3MoeConfig::from_hf(config, p.tp, p.ep));
      },
      true, timing, routing);
}

// MiniMax-M2 reads as Qwen3-MoE (Qwen3MoeConfig::from_hf says what differs).
COSTDSL_CLI_FAMILY(qwen3_moe){.name = "qwen3_moe",
                              .architectures = {"Qwen3MoeForCausalLM", "MiniMaxM2ForCausalLM"},
                              .model_types = {"qwen3_moe", "minimax_m2"},
                              .expert_parallel = true,
                              .kv_parallel = false,
                              .open = open_qwen3_moe,
                              .source = qwen3_moe_source};

}  // namespace costdsl::cli::models
