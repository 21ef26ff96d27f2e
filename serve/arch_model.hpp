#pragma once
// ArchModel: any costdsl arch (static Fixed<cfg> or run-time form; dense, or DP-attention
// MoE) as an IterationModel. The tree is built once; each iteration only evaluates it,
// through an archs::BatchFeed (dense archs take the batch whole, DP archs get it dealt
// over their groups), so once warm an iteration allocates nothing. A Reevaluator keeps
// the leaves whose input the last iteration already had (the GEMMs of a full token
// budget, everything but attention in a decode stretch): the time is evaluate()'s.
#include <array>
#include <cmath>
#include <concepts>
#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "costdsl/arch_def.hpp"
#include "costdsl/archs/support/batch_feed.hpp"
#include "costdsl/error.hpp"
#include "costdsl/evaluate.hpp"
#include "costdsl/lower.hpp"
#include "costdsl/ops/attention/batch.hpp"
#include "costdsl/ops/moe/routing.hpp"
#include "costdsl/reevaluator.hpp"
#include "costdsl/serve/detail/arch_facts.hpp"
#include "costdsl/timing.hpp"

namespace costdsl::serve {

// What an arch must offer to be served: the arch contract (costdsl/arch_def.hpp) and a
// tree that evaluates what BatchFeed makes of a batch.
template <class A>
concept ServableArch = ArchDef<A> && requires(const A& a, const Timing& t, archs::BatchFeed& feed,
                                              const ops::AttentionBatch& b) { evaluate(a.build(t), feed(a, b)); };

template <ServableArch Arch>
class ArchModel {
 public:
  ArchModel(Arch arch, const Timing& timing, ops::moe::Routing routing = {})
      : arch_(std::move(arch)), tree_(arch_.build(timing)), routing_(routing) {}
  // The tree was built from arch_ and the feed holds buffers: neither moves.
  ArchModel(const ArchModel&) = delete;
  ArchModel& operator=(const ArchModel&) = delete;

  double iteration_s(const ops::AttentionBatch& batch) {
    const double t = again_(tree_, feed_(arch_, batch, routing_)).time_s;
    if (!(t >= 0) || !std::isfinite(t))
      throw Error("ArchModel: an iteration evaluated to " + std::to_string(t) + " s (" +
                  std::to_string(batch.prefill.size()) + " prefill chunks, " + std::to_string(batch.decode_kv.size()) +
                  " decodes); iteration times must be finite and >= 0");
    return t;
  }
  double kv_bytes_per_token_per_gpu() const { return arch_.kv_bytes_per_token_per_gpu(); }
  double weight_bytes_per_gpu() const { return arch_.weight_bytes_per_gpu(); }

  // GPUs of one worker: ep for a DP-attention MoE arch (its experts span all ranks), hp × tp for a
  // KV-parallel one, tp otherwise.
  std::uint32_t gpus() const { return detail::worker_gpus(arch_); }
  // KV pools: each DP attention group keeps its own requests' KV; a dense arch has one.
  std::uint32_t kv_groups() const { return detail::kv_groups(arch_); }
  // Decoder layers an iteration runs (what a speculative step's draft layers add to).
  std::uint32_t layers() const { return detail::layers(arch_); }
  const Arch& arch() const noexcept { return arch_; }

  // Kernel launches of one GPU's iteration with a prompt in it: the leaves that run for a
  // probe batch (a 256-token prompt beside a decode; a leaf of zero time launches
  // nothing), each as often as the tree repeats it (layers), the busiest rank's.
  double launches() {
    if (launches_ < 0) {
      const std::uint32_t kv[] = {256};
      const ops::PrefillChunk chunk[] = {{0, 256}};
      std::array<Metrics, n_slots<Tree>> row{};
      costdsl::evaluate(tree_, feed_(arch_, ops::AttentionBatch{chunk, kv}, routing_), std::span(row));
      std::vector<Metrics> ones(row.size());
      for (std::size_t i = 0; i < row.size(); ++i) ones[i].time_s = row[i].time_s > 0 ? 1.0 : 0.0;
      launches_ = make_manifest(tree_).tree.aggregate(ones).time_s;
    }
    return launches_;
  }

 private:
  using Tree = decltype(std::declval<const Arch&>().build(std::declval<const Timing&>()));
  Arch arch_;
  Tree tree_;
  archs::BatchFeed feed_;
  ops::moe::Routing routing_;
  using Ins = decltype(std::declval<archs::BatchFeed&>()(std::declval<const Arch&>(),
                                                          std::declval<const ops::AttentionBatch&>(),
                                                          std::declval<ops::moe::Routing>()));
  Reevaluator<Tree, Ins> again_;
  double launches_ = -1;
};

}  // namespace costdsl::serve
