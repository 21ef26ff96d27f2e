// The Qwen3 dense family (Llama's layer plus q/k norm, TP) for the CLI: its run-time
// form, instantiated here once.
#include "../model_impl.hpp"
#include "costdsl/archs/qwen3.hpp"

namespace costdsl::cli::models {

using Qwen3 = archs::Qwen3<archs::Qwen3Config>;

std::unique_ptr<Model> open_qwen3(const HfConfig& config, const ModelOptions& options, const Timing* timing) {
  if (options.ep > 1 || options.dp > 1) throw InputError("qwen3 archs are dense: --ep and --dp must be 1");
  return open<Qwen3>(options.with_dtype(archs::Qwen3Config::from_hf(config, options.tp)), timing);
}

std::unique_ptr<serve::ModelSource> qwen3_source(const HfConfig& config, const Timing& timing) {
  return source([config](serve::Parallel p) { return Qwen3(archs::Qwen3Config::from_hf(config, p.tp)); }, false,
                timing);
}

}  // namespace costdsl::cli::models
