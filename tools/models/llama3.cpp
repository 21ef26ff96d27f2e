// The Llama family (dense, TP) for the CLI: its run-time forms, instantiated here once.
#include "../family.hpp"
#include "../model_impl.hpp"
#include "costdsl/archs/llama3.hpp"

namespace costdsl::cli::models {

using Llama3 = archs::Llama3<archs::Llama3Config>;
using Llama3Hptp = archs::Llama3<archs::Llama3Config, archs::AttnGrain::hptp>;

std::unique_ptr<Model> open_llama3(const HfConfig& config, const ModelOptions& options, const Timing* timing) {
  if (options.ep > 1 || options.dp > 1) throw InputError("llama archs are dense: --ep and --dp must be 1");
  const archs::Llama3Config c = options.dense(archs::Llama3Config::from_hf(config, options.tp));
  // hp 1 is today's tp tree (its own type); hp > 1 the KV-parallel grain.
  return with_kv_hint(c, [&] { return c.hp == 1 ? open<Llama3>(c, timing) : open<Llama3Hptp>(c, timing); });
}

std::unique_ptr<serve::ModelSource> llama3_source(const HfConfig& config, const Timing& timing, ops::moe::Routing,
                                                  bool hop_b) {
  const auto make = [config, hop_b](serve::Parallel p) {
    archs::Llama3Config c = archs::Llama3Config::from_hf(config, p.tp, p.hp);
    c.hop_b = hop_b && p.hp > 1;  // the hptp grain's option; the tp tree has no exchange
    return c;
  };
  return grain_source([make](serve::Parallel p) { return Llama3(make(p)); },
                      [make](serve::Parallel p) { return Llama3Hptp(make(p)); }, false, timing);
}

// Mistral and Qwen2 read as Llama: the same dense layer (Qwen2's q/k/v bias and Mistral-7B-v0.1's
// sliding window are not modelled).
COSTDSL_CLI_FAMILY(llama3){.name = "llama",
                           .architectures = {"LlamaForCausalLM", "MistralForCausalLM", "Qwen2ForCausalLM"},
                           .model_types = {"llama", "mistral", "qwen2"},
                           .expert_parallel = false,
                           .kv_parallel = true,
                           .open = open_llama3,
                           .source = llama3_source};

}  // namespace costdsl::cli::models
