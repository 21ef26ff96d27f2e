// ModelOptions resolved to a family and dispatched to its translation unit.
#include "model.hpp"

#include <fmt/format.h>

#include "costdsl/archs/registry.hpp"
#include "costdsl/data_dir.hpp"
#include "costdsl/error.hpp"
#include "costdsl/load_hf_config.hpp"
#include "costdsl/serve/model_source.hpp"

namespace costdsl::cli {

std::pair<HfConfig, std::string> ModelOptions::resolve() const {
  if (!model_config.empty()) {
    if (family.empty()) throw InputError("--model-config needs --family (llama, qwen3_moe or deepseek_v3)");
    return {load_hf_config(model_config), family};
  }
  if (arch.empty()) throw InputError("give --arch NAME (see `costdsl archs`) or --model-config FILE --family F");
  const archs::ArchInfo& info = archs::find_arch(arch);
  return {load_hf_config(default_data_dir() / "models" / info.config), info.family};
}

std::uint32_t ModelOptions::expert_parallel() const {
  const std::uint64_t e = ep != 0 ? ep : std::uint64_t{tp} * (dp != 0 ? dp : 1);
  if (e > 0xffffffffull) throw InputError(fmt::format("--tp {} × --dp {} overflows", tp, dp));
  if (dp != 0 && e != std::uint64_t{tp} * dp)
    throw InputError(
        fmt::format("--dp {} must equal ep / tp = {} / {} (DP groups of tp GPUs fill the ep GPUs)", dp, e, tp));
  return static_cast<std::uint32_t>(e);
}

namespace {
// The one place a family name picks its translation unit.
template <class Llama, class Qwen3Moe, class DeepseekV3>
auto by_family(const std::string& family, Llama llama, Qwen3Moe qwen3_moe, DeepseekV3 deepseek_v3) {
  if (family == "llama") return llama();
  if (family == "qwen3_moe") return qwen3_moe();
  if (family == "deepseek_v3") return deepseek_v3();
  throw InputError("unknown family '" + family + "' (llama, qwen3_moe, deepseek_v3)");
}

std::unique_ptr<Model> dispatch(const ModelOptions& options, const Timing* timing) {
  const std::pair<HfConfig, std::string> resolved = options.resolve();
  const HfConfig& config = resolved.first;
  return by_family(
      resolved.second, [&] { return models::open_llama3(config, options, timing); },
      [&] { return models::open_qwen3_moe(config, options, timing); },
      [&] { return models::open_deepseek_v3(config, options, timing); });
}
}  // namespace

std::unique_ptr<Model> open_model(const ModelOptions& options, const Timing& timing) {
  return dispatch(options, &timing);
}

void check_model(const ModelOptions& options) { dispatch(options, nullptr); }

std::unique_ptr<serve::ModelSource> open_model_source(const HfConfig& config, const std::string& family,
                                                      const Timing& timing, ops::moe::Routing routing) {
  return by_family(
      family, [&] { return models::llama3_source(config, timing); },
      [&] { return models::qwen3_moe_source(config, timing, routing); },
      [&] { return models::deepseek_v3_source(config, timing, routing); });
}

}  // namespace costdsl::cli
