// The gpt-oss family (DP attention + EP experts, or TP attention + TP experts; top-4, sliding/full layer pairs, MXFP4
// experts) for the CLI: its run-time forms, instantiated here once.
#include "../family.hpp"
#include "../model_impl.hpp"
#include "costdsl/archs/gpt_oss.hpp"

namespace costdsl::cli::models {

using GptOss = archs::GptOss<archs::GptOssConfig>;
using GptOssTpExperts = archs::GptOss<archs::GptOssConfig, worklets::ExpertGrain::tp>;

std::unique_ptr<Model> open_gpt_oss(const HfConfig& config, const ModelOptions& options, const Timing* timing) {
  const archs::GptOssConfig c = archs::GptOssConfig::from_hf(config, options.tp, options.expert_parallel());
  const ops::moe::Routing routing{options.routing_skew};
  return tp_experts(c) ? open<GptOssTpExperts>(c, timing, routing) : open<GptOss>(c, timing, routing);
}

std::unique_ptr<serve::ModelSource> gpt_oss_source(const HfConfig& config, const Timing& timing,
                                                   ops::moe::Routing routing, bool) {
  return source(
      [config](serve::Parallel p) {
        return by_expert_grain<GptOss, GptOssTpExperts>(archs::GptOssConfig::from_hf(config, p.tp, p.ep));
      },
      true, timing, routing);
}

COSTDSL_CLI_FAMILY(gpt_oss){.name = "gpt_oss",
                            .architectures = {"GptOssForCausalLM"},
                            .model_types = {"gpt_oss"},
                            .expert_parallel = true,
                            .kv_parallel = false,
                            .open = open_gpt_oss,
                            .source = gpt_oss_source};

}  // namespace costdsl::cli::models
