// ModelOptions resolved to a family and dispatched to its translation unit.
#include "model.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "registry.hpp"
#include "costdsl/data_dir.hpp"
#include "costdsl/error.hpp"
#include "costdsl/load_hf_config.hpp"
#include "costdsl/serve/model_source.hpp"

namespace costdsl::cli {

namespace {
// The family a config.json declares: its first `architectures` entry a family reads, else
// (no architectures at all) its `model_type`. Neither known: a DataError naming both,
// the rule and every supported name.
std::string infer_family(const HfConfig& hf) {
  const HfConfig::Value* listed = hf.find("architectures");
  std::vector<std::string> declared;
  if (listed != nullptr && listed->type == HfConfig::Value::Type::array)
    for (const HfConfig::Value& item : listed->items)
      if (item.type == HfConfig::Value::Type::string) declared.push_back(item.text);
  for (const std::string& name : declared)
    for (const archs::FamilyInfo& f : archs::families())
      if (std::find(f.architectures.begin(), f.architectures.end(), name) != f.architectures.end()) return f.name;
  const HfConfig::Value* type = hf.find("model_type");
  const bool has_type = type != nullptr && type->type == HfConfig::Value::Type::string;
  if (declared.empty() && has_type)
    for (const archs::FamilyInfo& f : archs::families())
      if (std::find(f.model_types.begin(), f.model_types.end(), type->text) != f.model_types.end()) return f.name;
  std::string supported;
  for (const archs::FamilyInfo& f : archs::families())
    supported += fmt::format("{}{} ({})", supported.empty() ? "" : ", ", fmt::join(f.architectures, ", "), f.name);
  throw DataError(fmt::format(
      "{}: architectures {} (model_type {}) is no supported family: the first known architectures entry picks "
      "it, model_type only when there is none; supported: {}; or give --family",
      hf.file(), listed != nullptr ? listed->json : "absent", type != nullptr ? type->json : "absent", supported));
}
}  // namespace

std::pair<HfConfig, std::string> ModelOptions::resolve() const {
  if (!model_config.empty()) {
    HfConfig hf = load_hf_config(model_config);
    hf.override_quantization(quantization);
    std::string f = family.empty() ? infer_family(hf) : archs::find_family(family).name;
    return {std::move(hf), std::move(f)};
  }
  if (arch.empty()) throw InputError("give --arch NAME (see `costdsl archs`) or --model-config FILE");
  const archs::ArchInfo& info = archs::find_arch(arch);
  HfConfig hf = load_hf_config(default_data_dir() / "models" / info.config);
  hf.override_quantization(quantization);
  return {std::move(hf), info.family};
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
// The families whose archs take KV-parallel attention (--hp above 1, --hop-b), listed for
// the messages that reject the others.
std::string kv_parallel_families() {
  std::string takers;
  for (const archs::FamilyInfo& f : archs::families())
    if (f.kv_parallel) takers += (takers.empty() ? "" : ", ") + f.name;
  return takers;
}

// The one place a family name picks its translation unit.
template <class Llama, class Qwen3, class Qwen3Moe, class Mixtral, class GptOss, class DeepseekV3>
auto by_family(const std::string& family, Llama llama, Qwen3 qwen3, Qwen3Moe qwen3_moe, Mixtral mixtral,
               GptOss gpt_oss, DeepseekV3 deepseek_v3) {
  if (family == "llama") return llama();
  if (family == "qwen3") return qwen3();
  if (family == "qwen3_moe") return qwen3_moe();
  if (family == "mixtral") return mixtral();
  if (family == "gpt_oss") return gpt_oss();
  if (family == "deepseek_v3") return deepseek_v3();
  archs::find_family(family);  // throws, listing the known families
  throw InputError("family '" + family + "' has no translation unit in tools/models/");
}

std::unique_ptr<Model> dispatch(const ModelOptions& options, const Timing* timing) {
  const std::pair<HfConfig, std::string> resolved = options.resolve();
  const HfConfig& config = resolved.first;
  // The KV-parallel attention grains (GQA hptp, MLA hp) and KV-head replication: the kv_parallel families.
  if ((options.hp != 1 || options.kv_replicate || options.hop_b) && !archs::find_family(resolved.second).kv_parallel)
    throw InputError(fmt::format("{}: {} archs do not take KV-parallel attention or KV-head replication yet (hp "
                                 "must be 1, no --kv-replicate; the {} families take them)",
                                 options.hp != 1       ? fmt::format("--hp {}", options.hp)
                                 : options.kv_replicate ? std::string("--kv-replicate")
                                                        : std::string("--hop-b"),
                                 resolved.second, kv_parallel_families()));
  return by_family(
      resolved.second, [&] { return models::open_llama3(config, options, timing); },
      [&] { return models::open_qwen3(config, options, timing); },
      [&] { return models::open_qwen3_moe(config, options, timing); },
      [&] { return models::open_mixtral(config, options, timing); },
      [&] { return models::open_gpt_oss(config, options, timing); },
      [&] { return models::open_deepseek_v3(config, options, timing); });
}
}  // namespace

std::unique_ptr<Model> open_model(const ModelOptions& options, const Timing& timing) {
  return dispatch(options, &timing);
}

void check_model(const ModelOptions& options) { dispatch(options, nullptr); }

std::unique_ptr<serve::ModelSource> open_model_source(const HfConfig& config, const std::string& family,
                                                      const Timing& timing, ops::moe::Routing routing, bool hop_b) {
  if (hop_b && !archs::find_family(family).kv_parallel)
    throw InputError("--hop-b: " + family + " archs have no KV-parallel attention grain, so no HP all-to-all to "
                     "overlap (--hop-b is for the " + kv_parallel_families() + " families)");
  return by_family(
      family, [&] { return models::llama3_source(config, timing, hop_b); },
      [&] { return models::qwen3_source(config, timing, hop_b); },
      [&] { return models::qwen3_moe_source(config, timing, routing); },
      [&] { return models::mixtral_source(config, timing, routing); },
      [&] { return models::gpt_oss_source(config, timing, routing); },
      [&] { return models::deepseek_v3_source(config, timing, routing, hop_b); });
}

}  // namespace costdsl::cli
