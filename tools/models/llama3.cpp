// The Llama family (dense, TP) for the CLI: its run-time form, instantiated here once.
#include "../model_impl.hpp"
#include "costdsl/archs/llama3.hpp"

namespace costdsl::cli::models {

using Llama3 = archs::Llama3<archs::Llama3Config>;

std::unique_ptr<Model> open_llama3(const HfConfig& config, const ModelOptions& options, const Timing* timing) {
  if (options.ep > 1 || options.dp > 1) throw InputError("llama archs are dense: --ep and --dp must be 1");
  return open<Llama3>(options.with_dtype(archs::Llama3Config::from_hf(config, options.tp)), timing);
}

std::unique_ptr<serve::ModelSource> llama3_source(const HfConfig& config, const Timing& timing) {
  return source([config](serve::Parallel p) { return Llama3(archs::Llama3Config::from_hf(config, p.tp)); }, false,
                timing);
}

}  // namespace costdsl::cli::models
