#pragma once
// L2 RankFolded<K, Loads>: one launch of K on each of a section's interchangeable ranks as
// ONE slot (INV-1: ranks never get slots of their own, so the tree does not grow with the
// degree). Loads is the slot's input, the ranks' loads: the routed rows of each EP rank or
// TP shard (ops::moe::EpLoadRef: the expert grains) or the KV slices of each hp rank
// (ops::KvSlices: kv_cache_append and decode under KV-parallel attention). Its
// `rank_runs<K::Input>(loads, f)`, found by argument-dependent lookup, calls f(a rank's
// kernel input, how many neighbouring ranks share it), so ranks with the same load share
// one evaluation.
//
// The ranks fold as a Fanout's do (evaluate.hpp): time the slowest rank's (its backend
// reported), work summed over every rank, coverage OR'd; in the balanced view
// (evaluate_balanced, RankFold::mean) time is the ranks' mean, so `--bounds` shows expert
// and KV-slice imbalance as imbalance rather than as time.
#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "costdsl/concepts.hpp"
#include "costdsl/kernel.hpp"
#include "costdsl/kernel_def.hpp"
#include "costdsl/metrics.hpp"
#include "costdsl/quantities.hpp"

namespace costdsl::ops {

template <KernelDef K, class Loads>
struct RankFolded {
  static constexpr std::string_view kind = K::kind;
  static constexpr Family family = K::family;
  using Input = Loads;
  Kernel<K> kernel;

  template <Quantities Q = Quantities::with_energy, RankFold F = RankFold::max>
  Metrics eval(const Input& loads) const {
    Metrics acc = algebra::empty();
    double slowest = -1, total_time = 0;
    std::uint64_t ranks = 0;
    rank_runs<typename K::Input>(loads, [&](const typename K::Input& in, std::uint32_t run) {
      const Metrics m = kernel.template eval<Q>(in);
      for (std::uint32_t i = 0; i < run; ++i) algebra::accumulate_max(acc, m);
      if (m.time_s > slowest) {  // report the backend of the rank that sets the time
        slowest = m.time_s;
        acc.backend = m.backend;
      }
      if constexpr (F == RankFold::mean) {
        total_time += m.time_s * run;
        ranks += run;
      }
    });
    if constexpr (F == RankFold::mean) {
      if (ranks != 0) acc.time_s = total_time / static_cast<double>(ranks);
    }
    return acc;
  }
  double lower_bound_s(const Input& loads) const {
    double s = 0;
    rank_runs<typename K::Input>(loads, [&](const typename K::Input& in, std::uint32_t) {
      s = std::max(s, kernel.lower_bound_s(in));
    });
    return s;
  }
  bool same_answers_as(const RankFolded& o) const noexcept { return kernel.same_answers_as(o.kernel); }
  std::vector<ConfigField> config_fields() const { return kernel.config_fields(); }
  std::vector<std::string> backends() const { return kernel.backends(); }
  std::vector<std::string> provenance() const { return kernel.provenance(); }
};

}  // namespace costdsl::ops
