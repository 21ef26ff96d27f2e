// ModelOptions resolved to a family and dispatched to its translation unit (tools/family.hpp).
#include "model.hpp"

#include <string>

#include <fmt/format.h>

#include "family.hpp"
#include "shipped_archs.hpp"
#include "costdsl/data_dir.hpp"
#include "costdsl/error.hpp"
#include "costdsl/load_hf_config.hpp"
#include "costdsl/serve/model_source.hpp"

namespace costdsl::cli {

std::pair<HfConfig, std::string> ModelOptions::resolve() const {
  if (!model_config.empty()) {
    HfConfig hf = load_hf_config(model_config);
    hf.override_quantization(quantization);
    std::string f = family.empty() ? family_of(hf).name : find_family(family).name;
    return {std::move(hf), std::move(f)};
  }
  if (arch.empty()) throw InputError("give --arch NAME (see `costdsl archs`) or --model-config FILE");
  const ShippedArch info = find_arch(arch);
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
  for (const ModelFamily* f : families())
    if (f->kv_parallel) takers += (takers.empty() ? "" : ", ") + f->name;
  return takers;
}

std::unique_ptr<Model> dispatch(const ModelOptions& options, const Timing* timing) {
  const std::pair<HfConfig, std::string> resolved = options.resolve();
  const HfConfig& config = resolved.first;
  // The KV-parallel attention grains (GQA hptp, MLA hp) and KV-head replication: the kv_parallel families.
  const ModelFamily& family = find_family(resolved.second);
  if ((options.hp != 1 || options.kv_replicate || options.hop_b) && !family.kv_parallel)
    throw InputError(fmt::format("{}: {} archs do not take KV-parallel attention or KV-head replication yet (hp "
                                 "must be 1, no --kv-replicate; the {} families take them)",
                                 options.hp != 1       ? fmt::format("--hp {}", options.hp)
                                 : options.kv_replicate ? std::string("--kv-replicate")
                                                        : std::string("--hop-b"),
                                 resolved.second, kv_parallel_families()));
  return family.open(config, options, timing);
}
}  // namespace

std::unique_ptr<Model> open_model(const ModelOptions& options, const Timing& timing) {
  return dispatch(options, &timing);
}

void check_model(const ModelOptions& options) { dispatch(options, nullptr); }

std::unique_ptr<serve::ModelSource> open_model_source(const HfConfig& config, const std::string& family,
                                                      const Timing& timing, ops::moe::Routing routing, bool hop_b) {
  const ModelFamily& f = find_family(family);
  if (hop_b && !f.kv_parallel)
    throw InputError("--hop-b: " + family + " archs have no KV-parallel attention grain, so no HP all-to-all to "
                     "overlap (--hop-b is for the " + kv_parallel_families() + " families)");
  return f.source(config, timing, routing, hop_b);
}

}  // namespace costdsl::cli
