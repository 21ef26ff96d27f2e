#pragma once
// Fanout: one section on a run-time number of interchangeable ranks, each with its
// own input (DP attention groups whose degree comes from a config file).
//
//   fanout(dp, labeled<"dp">("dp group", sum(attn, router)))
//
// Semantics are Max's (time is the slowest rank, work sums over all ranks, coverage
// ORs), but the ranks are not children: the section's slots appear once, so the tree
// type, the slot count and the compile time do not grow with the degree. Its input is
// ONE list entry, a contiguous range of per-rank input lists (a span or a vector), or a
// RankRuns (rank_runs.hpp): runs of identical neighbouring ranks, each evaluated once.
// A slot's row entry is the slowest rank's time and backend with the work of all
// ranks; folding that row reproduces the node's metrics. Its own node kind
// (NodeKind::fanout); it lowers to a Max with one child and `ranks` in the manifest.
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>

#include "costdsl/concepts.hpp"
#include "costdsl/detail/node_rules.hpp"
#include "costdsl/error.hpp"
#include "costdsl/fixed_string.hpp"
#include "costdsl/inputs.hpp"
#include "costdsl/max.hpp"

namespace costdsl {

template <CostNode C>
struct Fanout {
  static constexpr NodeKind node_kind = NodeKind::fanout;
  C child;
  std::uint64_t ranks = 1;
};

// Folds like a Max (max.hpp's MaxFold); evaluating it loops over the ranks of its
// input (evaluate.hpp), the one walk that treats it apart.
template <class C>
struct node_traits<Fanout<C>> : detail::one_child<C> {
  template <RankFold F>
  COSTDSL_ALWAYS_INLINE static constexpr algebra::MaxFold<F> fold(const Fanout<C>&) noexcept {
    return {};
  }
  static constexpr LoweredNode lowered(const Fanout<C>& node) noexcept {
    return {NodeKind::max, static_cast<double>(node.ranks), {}};
  }
};

template <class N>
concept RankFanout = std::remove_cvref_t<N>::node_kind == NodeKind::fanout;

template <CostNode C>
Fanout<C> fanout(std::uint64_t ranks, C child) {
  if (ranks == 0) throw ConfigError("fanout over 0 ranks: a fanned-out section needs at least 1 rank");
  return {std::move(child), ranks};
}

// The input-list entry of a Fanout: one input list per rank (paths relative to the
// Fanout's child), as a span or an owning vector. Nested like any other input:
//   nest<"layer">(inputs(fanout_input(per_group), experts_in))
template <class Ranks>
constexpr In<FixedString<0>{}, std::remove_cvref_t<Ranks>> fanout_input(Ranks&& per_rank) {
  return {std::forward<Ranks>(per_rank)};
}

}  // namespace costdsl
