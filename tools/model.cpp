// ModelOptions resolved to a family and dispatched to its translation unit.
#include "model.hpp"

#include <fmt/format.h>

#include "costdsl/archs/registry.hpp"
#include "costdsl/data_dir.hpp"
#include "costdsl/error.hpp"
#include "costdsl/load_hf_config.hpp"

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
std::unique_ptr<Model> dispatch(const ModelOptions& options, const Timing* timing) {
  const auto [config, family] = options.resolve();
  if (family == "llama") return models::open_llama3(config, options, timing);
  if (family == "qwen3_moe") return models::open_qwen3_moe(config, options, timing);
  if (family == "deepseek_v3") return models::open_deepseek_v3(config, options, timing);
  throw InputError("unknown family '" + family + "' (llama, qwen3_moe, deepseek_v3)");
}
}  // namespace

std::unique_ptr<Model> open_model(const ModelOptions& options, const Timing& timing) {
  return dispatch(options, &timing);
}

void check_model(const ModelOptions& options) { dispatch(options, nullptr); }

}  // namespace costdsl::cli
