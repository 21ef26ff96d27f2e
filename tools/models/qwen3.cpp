// The Qwen3 dense family (Llama's layer plus q/k norm, TP) for the CLI: its run-time
// forms, instantiated here once.
#include "../family.hpp"
#include "../model_impl.hpp"
#include "costdsl/archs/qwen3.hpp"

namespace costdsl::cli::models {

using Qwen3 = archs::Qwen3<archs::Qwen3Config>;
using Qwen3Hptp = archs::Qwen3<archs::Qwen3Config, worklets::AttnGrain::hptp>;

std::unique_ptr<Model> open_qwen3(const HfConfig& config, const ModelOptions& options, const Timing* timing) {
  if (options.ep > 1 || options.dp > 1) throw InputError("qwen3 archs are dense: --ep and --dp must be 1");
  const archs::Qwen3Config c = options.dense(archs::Qwen3Config::from_hf(config, options.tp));
  return with_kv_hint(c, [&] { return c.hp == 1 ? open<Qwen3>(c, timing) : open<Qwen3Hptp>(c, timing); });
}

std::unique_ptr<serve::ModelSource> qwen3_source(const HfConfig& config, const Timing& timing, ops::moe::Routing,
                                                 bool hop_b) {
  const auto make = [config, hop_b](serve::Parallel p) {
    archs::Qwen3Config c = archs::Qwen3Config::from_hf(config, p.tp, p.hp);
    c.hop_b = hop_b && p.hp > 1;  // the hptp grain's option; the tp tree has no exchange
    return c;
  };
  return grain_source([make](serve::Parallel p) { return Qwen3(make(p)); },
                      [make](serve::Parallel p) { return Qwen3Hptp(make(p)); }, false, timing);
}

COSTDSL_CLI_FAMILY(qwen3){.name = "qwen3",
                          .architectures = {"Qwen3ForCausalLM"},
                          .model_types = {"qwen3"},
                          .expert_parallel = false,
                          .kv_parallel = true,
                          .open = open_qwen3,
                          .source = qwen3_source};

}  // namespace costdsl::cli::models
