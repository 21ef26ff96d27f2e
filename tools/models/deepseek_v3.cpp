// The DeepSeek-V3 family (MLA, dense then MoE layers, shared expert on a side stream)
// for the CLI: its run-time form, instantiated here once.
#include "../model_impl.hpp"
#include "costdsl/archs/deepseek_v3.hpp"

namespace costdsl::cli::models {

using DeepseekV3 = archs::DeepseekV3<archs::DeepseekV3Config>;
using DeepseekV3Hp = archs::DeepseekV3<archs::DeepseekV3Config, archs::AttnGrain::hptp>;

std::unique_ptr<Model> open_deepseek_v3(const HfConfig& config, const ModelOptions& options, const Timing* timing) {
  // MLA has one latent KV head: nothing to replicate; and HOP-B's pipeline times GQA attention.
  if (options.kv_replicate)
    throw InputError("--kv-replicate: deepseek_v3 archs do not take KV-head replication (MLA has one latent KV "
                     "head, shared by every query head; split the KV with --hp instead)");
  if (options.hop_b)
    throw InputError("--hop-b: deepseek_v3 archs do not take HOP-B (the overlap is modelled for GQA attention, the "
                     "llama and qwen3 families; deepseek_v3 runs its HP all-to-all serially)");
  const archs::DeepseekV3Config c = options.with_dtype(
      archs::DeepseekV3Config::from_hf(config, options.tp, options.expert_parallel(), options.hp));
  const ops::moe::Routing routing{options.routing_skew};
  // hp 1 is today's tree (its own type); hp > 1 the KV-parallel grain.
  return c.hp == 1 ? open<DeepseekV3>(c, timing, routing) : open<DeepseekV3Hp>(c, timing, routing);
}

std::unique_ptr<serve::ModelSource> deepseek_v3_source(const HfConfig& config, const Timing& timing,
                                                       ops::moe::Routing routing) {
  return source(
      [config](serve::Parallel p) { return DeepseekV3(archs::DeepseekV3Config::from_hf(config, p.tp, p.ep)); }, true,
      timing, routing);
}

}  // namespace costdsl::cli::models
