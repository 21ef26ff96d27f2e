#pragma once
// Model over one arch type: the built tree, its manifest and a BatchFeed (dense archs
// take a batch whole, DP-attention MoE archs get it dealt over their groups); and a
// family as a serve::ModelSource (serve::ArchFamily). Included only by
// each family's translation unit (tools/family.hpp).
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <variant>

#include "costdsl/archs/support/batch_feed.hpp"
#include "costdsl/core.hpp"
#include "costdsl/error.hpp"
#include "costdsl/lower.hpp"
#include "costdsl/ops/moe/routing.hpp"
#include "costdsl/serve/arch_family.hpp"
#include "costdsl/serve/grain_family.hpp"
#include "model.hpp"

namespace costdsl::cli::models {

template <class Arch>
class ModelImpl final : public Model {
 public:
  ModelImpl(Arch arch, const Timing& timing, ops::moe::Routing routing)
      : arch_(std::move(arch)), tree_(arch_.build(timing)), manifest_(make_manifest(tree_)), routing_(routing) {}

  const Manifest& manifest() const noexcept override { return manifest_; }

  // The report path (eval, sweep): energy included, as the CLI prints and writes it.
  Metrics evaluate(const ops::AttentionBatch& batch, std::span<Metrics> row) override {
    return costdsl::evaluate<Quantities::with_energy>(tree_, feed_(arch_, batch, routing_), fixed(row));
  }
  Metrics evaluate_balanced(const ops::AttentionBatch& batch) override {
    return costdsl::evaluate_balanced(tree_, feed_(arch_, batch, routing_));
  }
  void evaluate_bounds(const ops::AttentionBatch& batch, std::span<double> bounds) override {
    costdsl::evaluate_bounds(tree_, feed_(arch_, batch, routing_), fixed(bounds));
  }

 private:
  using Tree = decltype(std::declval<const Arch&>().build(std::declval<const Timing&>()));
  static constexpr std::size_t slots = n_slots<Tree>;

  template <class T>
  static std::span<T, slots> fixed(std::span<T> s) {
    if (s.size() != slots)
      throw InputError("a row of " + std::to_string(s.size()) + " entries for " + std::to_string(slots) + " slots");
    return std::span<T, slots>(s.data(), slots);
  }

  Arch arch_;
  Tree tree_;
  Manifest manifest_;
  ops::moe::Routing routing_;
  archs::BatchFeed feed_;
};

// The model, or (timing null) only the arch's checks.
template <class Arch, class Config>
std::unique_ptr<Model> open(Config config, const Timing* timing, ops::moe::Routing routing = {}) {
  Arch arch(std::move(config));
  if (timing == nullptr) return nullptr;
  return std::make_unique<ModelImpl<Arch>>(std::move(arch), *timing, routing);
}

// Opens a dense arch config c with open_arch(); tp above the KV heads that the arch
// rejects gets the two ways past it in its message: split the KV (hp) or copy the heads.
template <class ArchConfig, class Open>
std::unique_ptr<Model> with_kv_hint(const ArchConfig& c, Open open_arch) {
  try {
    return open_arch();
  } catch (const ConfigError& e) {
    if (c.kv_replicate || c.num_kv_heads == 0 || c.tp <= c.num_kv_heads || c.tp % c.num_kv_heads != 0) throw;
    const std::uint64_t gpus = std::uint64_t{c.tp} * c.hp;
    throw ConfigError(std::string(e.what()) + "; to run attention on " + std::to_string(gpus) +
                      " GPUs, split each request's KV instead: --tp " + std::to_string(c.num_kv_heads) + " --hp " +
                      std::to_string(gpus / c.num_kv_heads) + " (or copy each KV head to " +
                      std::to_string(c.tp / c.num_kv_heads) + " GPUs: --kv-replicate)");
  }
}

// A MoE config's expert grain, as frameworks decide it: ep 1 over tp > 1 GPUs cannot hold
// whole experts on a rank, so every expert is TP-sharded over them (moe_tp_size = tp).
template <class MoeConfig>
bool tp_experts(const MoeConfig& c) noexcept {
  return c.ep == 1 && c.tp > 1;
}

// A MoE family's worker arch for config c: EpArch, or TpArch where tp_experts(c). A
// source's make returns it, and serve::ArchFamily builds the alternative it holds.
template <class EpArch, class TpArch, class MoeConfig>
std::variant<EpArch, TpArch> by_expert_grain(const MoeConfig& c) {
  if (tp_experts(c)) return std::variant<EpArch, TpArch>(std::in_place_index<1>, c);
  return std::variant<EpArch, TpArch>(std::in_place_index<0>, c);
}

// The family as a deployment search's model source: make(Parallel) -> the arch.
template <class Make>
std::unique_ptr<serve::ModelSource> source(Make make, bool expert_parallel, const Timing& timing,
                                           ops::moe::Routing routing = {}) {
  return std::make_unique<serve::ArchFamily<Make>>(std::move(make), expert_parallel, timing, routing);
}

// A family with both attention grains (serve::GrainFamily): hp 1 workers run the tp arch,
// hp > 1 the KV-parallel one.
template <class MakeTp, class MakeHp>
std::unique_ptr<serve::ModelSource> grain_source(MakeTp tp, MakeHp hp, bool expert_parallel, const Timing& timing,
                                                 ops::moe::Routing routing = {}) {
  return std::make_unique<serve::GrainFamily<MakeTp, MakeHp>>(std::move(tp), std::move(hp), expert_parallel, timing,
                                                              routing);
}

}  // namespace costdsl::cli::models
