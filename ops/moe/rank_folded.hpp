#pragma once
// L2 RankFolded: the routed experts of every EP rank (or TP shard) as ONE slot: its callable
// runs the kernel's launch for each rank's routed rows and folds the ranks with the Max
// algebra (time = the slowest rank, work sums). Ranks are interchangeable, so they never
// get slots of their own (INV-1); neighbouring ranks with the same load (balanced routing)
// share one evaluation. Used by both expert grains (worklets/moe_expert_ep.hpp,
// worklets/moe_expert_tp.hpp).
#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "costdsl/concepts.hpp"
#include "costdsl/kernel.hpp"
#include "costdsl/kernel_def.hpp"
#include "costdsl/metrics.hpp"
#include "costdsl/ops/moe/routing.hpp"

namespace costdsl::ops::moe {

// A slot that owns the loop over EP ranks: one launch per rank, Max-folded.
template <KernelDef K>
struct RankFolded {
  static constexpr std::string_view kind = K::kind;
  static constexpr Family family = K::family;
  using Input = EpLoadRef;
  Kernel<K> kernel;

  // A rank's launch takes its routed rows, and the experts they hit where the kernel's
  // input has that field (grouped_gemm, fused_moe): by the input's shape, not a kind list.
  static typename K::Input rank_input(const RankLoad& r) {
    if constexpr (requires(typename K::Input in) { in.active_experts; }) {
      return {r.rows, r.active_experts};
    } else {
      return {r.rows};
    }
  }
  template <Quantities Q = Quantities::with_energy>
  Metrics eval(const Input& load) const {
    Metrics acc = algebra::empty();
    double slowest = -1;
    const RankLoad* previous = nullptr;
    Metrics m{};
    for (const RankLoad& r : load->used()) {
      // Balanced routing gives neighbouring ranks the same load: one launch evaluated for them.
      if (previous == nullptr || !(r == *previous)) m = kernel.template eval<Q>(rank_input(r));
      previous = &r;
      algebra::accumulate_max(acc, m);
      if (m.time_s > slowest) {  // report the backend of the rank that sets the time
        slowest = m.time_s;
        acc.backend = m.backend;
      }
    }
    return acc;
  }
  double lower_bound_s(const Input& load) const {
    double s = 0;
    for (const RankLoad& r : load->used()) s = std::max(s, kernel.lower_bound_s(rank_input(r)));
    return s;
  }
  std::vector<ConfigField> config_fields() const { return kernel.config_fields(); }
  std::vector<std::string> backends() const { return kernel.backends(); }
  std::vector<std::string> provenance() const { return kernel.provenance(); }
};

}  // namespace costdsl::ops::moe
