// The DeepSeek-V3 family (MLA, dense then MoE layers, shared expert on a side stream)
// for the CLI: its run-time form, instantiated here once.
#include "../model_impl.hpp"
#include "costdsl/archs/deepseek_v3.hpp"

namespace costdsl::cli::models {

using DeepseekV3 = archs::DeepseekV3<archs::DeepseekV3Config>;
using DeepseekV3Hp = archs::DeepseekV3<archs::DeepseekV3Config, archs::AttnGrain::hptp>;

namespace {
// HOP-B's pipeline times GQA attention; MLA's HP all-to-all runs serially.
void reject_hop_b(bool hop_b) {
  if (hop_b)
    throw InputError("--hop-b: deepseek_v3 archs do not take HOP-B (the overlap is modelled for GQA attention, the "
                     "llama and qwen3 families; deepseek_v3 runs its HP all-to-all serially)");
}
}  // namespace

std::unique_ptr<Model> open_deepseek_v3(const HfConfig& config, const ModelOptions& options, const Timing* timing) {
  // MLA has one latent KV head: nothing to replicate.
  if (options.kv_replicate)
    throw InputError("--kv-replicate: deepseek_v3 archs do not take KV-head replication (MLA has one latent KV "
                     "head, shared by every query head; split the KV with --hp instead)");
  reject_hop_b(options.hop_b);
  const archs::DeepseekV3Config c = options.with_dtype(
      archs::DeepseekV3Config::from_hf(config, options.tp, options.expert_parallel(), options.hp));
  const ops::moe::Routing routing{options.routing_skew};
  // hp 1 is today's tree (its own type); hp > 1 the KV-parallel grain.
  return c.hp == 1 ? open<DeepseekV3>(c, timing, routing) : open<DeepseekV3Hp>(c, timing, routing);
}

// Both grains: hp 1 workers run today's tree, hp > 1 decode workers the MLA hp grain
// (tp 1, dp = ep / hp groups of hp GPUs).
std::unique_ptr<serve::ModelSource> deepseek_v3_source(const HfConfig& config, const Timing& timing,
                                                       ops::moe::Routing routing, bool hop_b) {
  reject_hop_b(hop_b);
  return grain_source(
      [config](serve::Parallel p) { return DeepseekV3(archs::DeepseekV3Config::from_hf(config, p.tp, p.ep)); },
      [config](serve::Parallel p) { return DeepseekV3Hp(archs::DeepseekV3Config::from_hf(config, p.tp, p.ep, p.hp)); },
      true, timing, routing);
}

}  // namespace costdsl::cli::models
