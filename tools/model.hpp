#pragma once
// A shipped arch or a config.json in its run-time form, built for one Timing: what the
// arch commands (eval, describe, manifest, sweep, archs) need, behind one interface;
// and, for `costdsl plan`, the same family as a serve::ModelSource (the arch made per
// parallelism, its trees built on demand). Each family's templates are instantiated
// once, in its own translation unit (tools/family.hpp), so the CLI compiles in
// parallel and no command re-instantiates a family.
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>

#include "costdsl/dtype.hpp"
#include "costdsl/quantization.hpp"
#include "costdsl/hf_config.hpp"
#include "costdsl/manifest.hpp"
#include "costdsl/metrics.hpp"
#include "costdsl/ops/attention/batch.hpp"
#include "costdsl/ops/moe/routing.hpp"
#include "costdsl/parallelism.hpp"
#include "costdsl/timing.hpp"

namespace costdsl::serve {
class ModelSource;  // costdsl/serve/model_source.hpp
}  // namespace costdsl::serve

namespace costdsl::cli {

// What the user asked for, before it is bound to an arch's form.
struct ModelOptions {
  std::string arch;
  std::string model_config;
  std::string family;
  std::uint32_t tp = 1, ep = 0, dp = 0;  // ep, dp: 0 = not given
  std::uint32_t hp = 1;                  // KV-parallel ranks (dense archs: attention on hp × tp GPUs)
  std::uint32_t moe_tp = 1;              // MoE archs: each expert's width split moe_tp ways (EP experts, dp 1)
  bool kv_replicate = false;             // tp above the KV heads by copying them (dense archs)
  bool hop_b = false;                    // hp > 1: overlap the HP all-to-all with attention (Helix HOP-B)
  double routing_skew = 0;
  // Components quantized otherwise than the checkpoint says (--quant, --kv-dtype):
  // resolve() hands them to the config, which every arch reads its dtypes from.
  Quantization::Choice quantization;

  // The parallelism asked for, with `ep` resolved (1 for a dense arch; expert_parallel()).
  Parallelism parallelism(std::uint32_t ep_degree) const {
    return {.tp = tp, .ep = ep_degree, .hp = hp, .moe_tp = moe_tp, .kv_replicate = kv_replicate, .hop_b = hop_b};
  }

  // The config.json to build and its family: --arch's, or --model-config's from its
  // `architectures` (else `model_type`), --family overriding; with the quantization
  // choice applied.
  std::pair<HfConfig, std::string> resolve() const;
  // MoE archs: ep from --ep, or tp × --dp, or tp; --dp, when given, must be ep / tp.
  std::uint32_t expert_parallel() const;
};

class Model {
 public:
  virtual ~Model() = default;
  // Slots (dotted names, kinds, configs, backends), flat nodes and labels.
  virtual const Manifest& manifest() const noexcept = 0;
  // One iteration: the total, and each slot's metrics into row (manifest().slots.size()),
  // energy included.
  // MoE archs deal the requests round-robin over their DP groups.
  virtual Metrics evaluate(const ops::AttentionBatch& batch, std::span<Metrics> row) = 0;
  // The iteration under perfect load balance (every Max and rank fan-out at the mean).
  virtual Metrics evaluate_balanced(const ops::AttentionBatch& batch) = 0;
  // Each slot's hardware lower bound for this iteration.
  virtual void evaluate_bounds(const ops::AttentionBatch& batch, std::span<double> bounds) = 0;
};

// The model the options name, built for `timing`. Throws ConfigError for a degree the
// arch rejects, InputError / DataError for bad options or files.
std::unique_ptr<Model> open_model(const ModelOptions& options, const Timing& timing);
// The same checks without building a tree (which degrees does an arch accept?).
void check_model(const ModelOptions& options);
// The family of `config` as a deployment search's model source: the arch made for each
// parallelism the search tries (a ConfigError there means "rejected"), its tree built
// for `timing` when first simulated. `config` is copied. hop_b: the KV-parallel
// workers (hp > 1) overlap their HP all-to-all (Helix HOP-B); a KV-parallel family only.
std::unique_ptr<serve::ModelSource> open_model_source(const HfConfig& config, const std::string& family,
                                                      const Timing& timing, ops::moe::Routing routing = {},
                                                      bool hop_b = false);

}  // namespace costdsl::cli
