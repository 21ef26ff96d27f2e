#pragma once
// A model family as the CLI knows it, registered beside its code: every family is an
// instance of a frame (archs/frames/) and one meson.build `frame_families` line, from which
// meson generates its translation unit (frame_family.cpp.in: COSTDSL_CLI_FAMILY with
// frame_family<Config>(), its names from its Layer tag) and the list in cli_families.h,
// which family.cpp reads: --family, config.json inference, `costdsl archs`, the importer's
// shape filter and the planner all find a family there; nothing else names one.
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "costdsl/hf_config.hpp"
#include "costdsl/ops/moe/routing.hpp"
#include "costdsl/timing.hpp"
#include "model.hpp"

namespace costdsl::cli {

struct ModelFamily {
  std::string name;                        // as --family takes it
  std::vector<std::string> architectures;  // config.json `architectures` entries it reads
  std::vector<std::string> model_types;    // config.json `model_type` values, when
                                           // architectures is absent
  // Among the families a config.json's names pick, whether this one reads it (Llama-4:
  // Scout's and Maverick's MoE step); null: every config that names it.
  bool (*reads)(const HfConfig& config);
  bool expert_parallel;                    // takes --ep / --dp (DP attention + EP experts)
  bool kv_parallel;                        // takes --hp (KV-parallel attention); the GQA families also
                                           // --kv-replicate
  // The model the options name, built for *timing; a null timing runs only the
  // arch's checks.
  std::unique_ptr<Model> (*open)(const HfConfig& config, const ModelOptions& options, const Timing* timing);
  // The family as a deployment search's model source: routing for the MoE
  // families, hop_b (Helix HOP-B on the hp > 1 workers) for the KV-parallel
  // ones.
  std::unique_ptr<serve::ModelSource> (*source)(const HfConfig& config, const Timing& timing, ops::moe::Routing routing,
                                                bool hop_b);
};

// Every registered family, in tools/meson.build's order.
const std::vector<const ModelFamily*>& families();
std::vector<std::string> family_names();
// By --family name; an InputError listing the known ones.
const ModelFamily& find_family(std::string_view name);
// The family a config.json declares: its first `architectures` entry a family
// names, else (no architectures at all) its `model_type`; of the families a name
// picks, the first that reads the config (ModelFamily::reads), else the first (whose
// reader names the field it refuses). Neither known: a DataError naming both, the
// rule and every supported name.
const ModelFamily& family_of(const HfConfig& config);

}  // namespace costdsl::cli

// Defines the family `stem` (inside namespace costdsl::cli::models).
#define COSTDSL_CLI_FAMILY(stem)                          \
  extern const ::costdsl::cli::ModelFamily stem##_family; \
  const ::costdsl::cli::ModelFamily stem##_family
