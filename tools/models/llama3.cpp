// The Llama family (dense, TP) for the CLI: its run-time form, instantiated here once.
#include <fmt/format.h>

#include "../model_impl.hpp"
#include "costdsl/archs/llama3.hpp"

namespace costdsl::cli::models {

using Llama3 = archs::Llama3<archs::Llama3Config>;
using Llama3Hptp = archs::Llama3<archs::Llama3Config, archs::AttnGrain::hptp>;

std::unique_ptr<Model> open_llama3(const HfConfig& config, const ModelOptions& options, const Timing* timing) {
  if (options.ep > 1 || options.dp > 1) throw InputError("llama archs are dense: --ep and --dp must be 1");
  const archs::Llama3Config c = options.with_dtype(archs::Llama3Config::from_hf(config, options.tp, options.hp));
  try {
    // hp 1 is today's tp tree (its own type); hp > 1 the KV-parallel grain.
    return options.hp == 1 ? open<Llama3>(c, timing) : open<Llama3Hptp>(c, timing);
  } catch (const ConfigError& e) {
    // tp above the KV heads: the GPUs can split the KV instead of replicating heads.
    if (c.num_kv_heads == 0 || c.tp <= c.num_kv_heads || c.tp % c.num_kv_heads != 0) throw;
    throw ConfigError(fmt::format("{}; to run attention on {} GPUs, split each request's KV instead: --tp {} --hp {}",
                                  e.what(), std::uint64_t{c.tp} * c.hp, c.num_kv_heads,
                                  std::uint64_t{c.tp / c.num_kv_heads} * c.hp));
  }
}

std::unique_ptr<serve::ModelSource> llama3_source(const HfConfig& config, const Timing& timing) {
  return source([config](serve::Parallel p) { return Llama3(archs::Llama3Config::from_hf(config, p.tp)); }, false,
                timing);
}

}  // namespace costdsl::cli::models
