// The DeepSeek-V3 family (MLA, dense then MoE layers, shared expert on a side stream)
// for the CLI: its run-time forms (EP or TP experts under tp attention; the hp grain),
// instantiated here once.
#include "../family.hpp"
#include "../model_impl.hpp"
#include "costdsl/archs/deepseek_v3.hpp"

namespace costdsl::cli::models {

using DeepseekV3 = archs::DeepseekV3<archs::DeepseekV3Config>;
using DeepseekV3Hp = archs::DeepseekV3<archs::DeepseekV3Config, archs::AttnGrain::hptp>;
using DeepseekV3TpExperts = archs::DeepseekV3<archs::DeepseekV3Config, archs::AttnGrain::tp, worklets::ExpertGrain::tp>;

std::unique_ptr<Model> open_deepseek_v3(const HfConfig& config, const ModelOptions& options, const Timing* timing) {
  // MLA has one latent KV head: nothing to replicate.
  if (options.kv_replicate)
    throw InputError("--kv-replicate: deepseek_v3 archs do not take KV-head replication (MLA has one latent KV "
                     "head, shared by every query head; split the KV with --hp instead)");
  archs::DeepseekV3Config c = 
      archs::DeepseekV3Config::from_hf(config, options.tp, options.expert_parallel(), options.hp);
  c.hop_b = options.hop_b;
  const ops::moe::Routing routing{options.routing_skew};
  // hp 1 is today's tree (its own type), with TP experts where ep 1 spans tp > 1 GPUs;
  // hp > 1 the KV-parallel grain.
  if (c.hp != 1) return open<DeepseekV3Hp>(c, timing, routing);
  return tp_experts(c) ? open<DeepseekV3TpExperts>(c, timing, routing) : open<DeepseekV3>(c, timing, routing);
}

// Both attention grains: hp 1 workers run today's tree (TP experts at ep 1 over tp > 1
// GPUs), hp > 1 decode workers the MLA hp grain (tp 1, dp = ep / hp groups of hp GPUs).
std::unique_ptr<serve::ModelSource> deepseek_v3_source(const HfConfig& config, const Timing& timing,
                                                       ops::moe::Routing routing, bool hop_b) {
  return grain_source(
      [config](serve::Parallel p) {
        return by_expert_grain<DeepseekV3, DeepseekV3TpExperts>(archs::DeepseekV3Config::from_hf(config, p.tp, p.ep));
      },
      [config, hop_b](serve::Parallel p) {
        archs::DeepseekV3Config c = archs::DeepseekV3Config::from_hf(config, p.tp, p.ep, p.hp);
        c.hop_b = hop_b;  // the hp grain's option; the tp tree has no exchange
        return DeepseekV3Hp(c);
      },
      true, timing, routing);
}

// Kimi-K2 (model_type kimi_k2) is DeepSeek-V3's architecture.
COSTDSL_CLI_FAMILY(deepseek_v3){.name = "deepseek_v3",
                                .architectures = {"DeepseekV3ForCausalLM"},
                                .model_types = {"deepseek_v3", "kimi_k2"},
                                .expert_parallel = true,
                                .kv_parallel = true,
                                .open = open_deepseek_v3,
                                .source = deepseek_v3_source};

}  // namespace costdsl::cli::models
