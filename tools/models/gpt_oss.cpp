// The gpt-oss family (DP attention, EP experts, top-4, sliding/full layer pairs, MXFP4
// experts) for the CLI: its run-time form, instantiated here once.
#include "../model_impl.hpp"
#include "costdsl/archs/gpt_oss.hpp"

namespace costdsl::cli::models {

using GptOss = archs::GptOss<archs::GptOssConfig>;

std::unique_ptr<Model> open_gpt_oss(const HfConfig& config, const ModelOptions& options, const Timing* timing) {
  return open<GptOss>(archs::GptOssConfig::from_hf(config, options.tp, options.expert_parallel()),
                      timing, ops::moe::Routing{options.routing_skew});
}

std::unique_ptr<serve::ModelSource> gpt_oss_source(const HfConfig& config, const Timing& timing,
                                                   ops::moe::Routing routing) {
  return source([config](serve::Parallel p) { return GptOss(archs::GptOssConfig::from_hf(config, p.tp, p.ep)); },
                true, timing, routing);
}

}  // namespace costdsl::cli::models
