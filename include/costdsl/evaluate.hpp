#pragma once
// Evaluating one iteration of a static tree: a fully inlined fold over the
// node types, no tree walk at run time, no allocation, no virtual call.
//
//   Metrics total = evaluate(tree, in);               // the one total (INV-6)
//   std::array<Metrics, n_slots<Tree>> row;
//   Metrics total = evaluate(tree, in, row);          // and each slot's metrics
//   evaluate<Quantities::with_energy>(tree, in)       // energy too (quantities.hpp)
#include <array>
#include <cstddef>
#include <cstdint>
#include <new>
#include <span>
#include <string>
#include <type_traits>
#include <utility>

#include <boost/mp11/algorithm.hpp>

#include "costdsl/detail/diagnostics.hpp"
#include "costdsl/detail/inline.hpp"
#include "costdsl/detail/input_match.hpp"
#include "costdsl/detail/node_rules.hpp"
#include "costdsl/detail/shared_slots.hpp"
#include "costdsl/error.hpp"
#include "costdsl/eval_slot.hpp"
#include "costdsl/fanout.hpp"
#include "costdsl/inputs.hpp"
#include "costdsl/metrics.hpp"
#include "costdsl/quantities.hpp"
#include "costdsl/rank_runs.hpp"
#include "costdsl/slots.hpp"

namespace costdsl {

namespace diagnostic {
template <std::size_t Index, FixedString SlotPath, FixedString InputPath>
struct input_does_not_match_slot {
  static_assert(always_false<Index, SlotPath, InputPath>,
                "costdsl: the input list does not match the tree's slot list; see "
                "input_does_not_match_slot<index, slot path, input path> above (inputs must follow slot order)");
};
template <std::size_t Index, FixedString SlotPath>
struct missing_input_for_slot {
  static_assert(always_false<Index, SlotPath>,
                "costdsl: the input list is shorter than the slot list; see missing_input_for_slot<index, slot path> "
                "above");
};
template <std::size_t Index, FixedString InputPath>
struct input_without_slot {
  static_assert(always_false<Index, InputPath>,
                "costdsl: the input list is longer than the slot list; see input_without_slot<index, input path> "
                "above");
};
template <FixedString SlotPath, class Expected, class Got>
struct input_has_wrong_type {
  static_assert(always_false<SlotPath>,
                "costdsl: an input's type is not its slot kernel's Input; see input_has_wrong_type<slot path, "
                "expected, got> above");
};
}  // namespace diagnostic

namespace detail {

template <class Slots, class Ins>
struct input_check;

template <class... S, class... I>
struct input_check<boost::mp11::mp_list<S...>, Inputs<I...>>
    : input_match<boost::mp11::mp_list<S...>, Inputs<I...>> {
  using match = input_match<boost::mp11::mp_list<S...>, Inputs<I...>>;
  using match::first_path_mismatch, match::first_wrong_type, match::n_common, match::n_inputs, match::n_slots;

  // true, or exactly one diagnostic for the first problem.
  static constexpr bool ok() {
    if constexpr (first_path_mismatch < n_common) {
      using Sl = boost::mp11::mp_at_c<boost::mp11::mp_list<S...>, first_path_mismatch>;
      using In = boost::mp11::mp_at_c<boost::mp11::mp_list<I...>, first_path_mismatch>;
      diagnostic::fail<diagnostic::input_does_not_match_slot<first_path_mismatch, Sl::path, In::path>, int>();
      return false;
    } else if constexpr (n_inputs < n_slots) {
      using Sl = boost::mp11::mp_at_c<boost::mp11::mp_list<S...>, n_inputs>;
      diagnostic::fail<diagnostic::missing_input_for_slot<n_inputs, Sl::path>, int>();
      return false;
    } else if constexpr (n_inputs > n_slots) {
      using In = boost::mp11::mp_at_c<boost::mp11::mp_list<I...>, n_slots>;
      diagnostic::fail<diagnostic::input_without_slot<n_slots, In::path>, int>();
      return false;
    } else {
      constexpr std::size_t bad = first_wrong_type;
      if constexpr (bad < n_slots) {
        using Sl = boost::mp11::mp_at_c<boost::mp11::mp_list<S...>, bad>;
        using In = boost::mp11::mp_at_c<boost::mp11::mp_list<I...>, bad>;
        diagnostic::fail<diagnostic::input_has_wrong_type<Sl::path, typename entry_value<Sl>::type,
                                                          typename In::value_type>,
                         int>();
        return false;
      } else {
        return true;
      }
    }
  }
};

// The fold. Offset is the node's first slot index, InOffset its first input-list
// index (they differ after a Fanout). Pass::row also writes each leaf's metrics to
// row[slot]; Pass::replay folds an existing row instead of evaluating kernels;
// Pass::balanced folds every Max and Fanout, and every slot that folds ranks itself
// (ops::RankFolded), with the mean of its children's (ranks') times: the iteration under
// perfect load balance. One instantiation per node type:
// the recursion depth is the tree's depth, packs are expanded with folds.
// Memo: where a repeated slot finds the answer an earlier one gave in this evaluation
// (ShareMemo, detail/shared_slots.hpp; `run` the Fanout run being evaluated), or NoShare.
enum class Pass { total, row, replay, balanced };

template <std::size_t Offset, std::size_t InOffset, Pass P, Quantities Q, class Node, class Ins, class Memo = NoShare>
COSTDSL_INLINE Metrics eval_node(const Node& node, const Ins& in, Metrics* row, Memo* memo = nullptr,
                                 std::uint32_t run = 0);

// A composite: its children in slot order through the node's fold (node_traits);
// the balanced pass folds every Max with the mean of its children's times.
template <std::size_t Offset, std::size_t InOffset, Pass P, Quantities Q, class Node, class Ins, class Memo,
          std::size_t... I>
COSTDSL_INLINE Metrics eval_children(const Node& node, const Ins& in, Metrics* row, Memo* memo, std::uint32_t run,
                                     std::index_sequence<I...>) {
  constexpr auto& offsets = child_offsets<Node>;
  constexpr auto& in_offsets = child_input_offsets<Node>;
  auto fold = node_traits<Node>::template fold<P == Pass::balanced ? RankFold::mean : RankFold::max>(node);
  (fold.add(eval_node<Offset + offsets[I], InOffset + in_offsets[I], P, Q>(detail::child<I>(node), in, row, memo, run)),
   ...);
  return fold.result();
}

inline void check_rank_count(std::size_t ranks, std::size_t input_lists) {
  if (input_lists != ranks)
    throw InputError("fanout over " + std::to_string(ranks) + " ranks got input lists for " +
                     std::to_string(input_lists));
}

// A Fanout's input: every rank's list (counts empty), or runs of identical ranks
// (RankRuns: each list stands for counts[i] neighbouring ranks).
template <class R>
struct RankLists {
  std::span<const R> lists;
  std::span<const std::uint32_t> counts;

  std::uint32_t count(std::size_t i) const noexcept { return counts.empty() ? 1 : counts[i]; }
  std::uint64_t ranks() const {
    if (counts.empty()) return lists.size();
    if (counts.size() != lists.size())
      throw InputError("fanout: " + std::to_string(lists.size()) + " rank runs with " +
                       std::to_string(counts.size()) + " run lengths");
    std::uint64_t n = 0;
    for (const std::uint32_t c : counts) n += c;
    return n;
  }
};
template <class V>
auto rank_lists(const V& ranks) {
  return RankLists<std::remove_cvref_t<decltype(*std::data(ranks))>>{std::span{std::data(ranks), std::size(ranks)},
                                                                      {}};
}
template <class R>
RankLists<R> rank_lists(const RankRuns<R>& runs) {
  return {runs.runs, runs.count};
}

// A Fanout under perfect balance: the mean of its ranks' times, all ranks' work. A run
// of identical ranks is evaluated once and added once per rank, as the expanded list.
template <Quantities Q, class Node, class R, class Memo>
Metrics eval_fanout_balanced(const Node& node, const RankLists<R>& ranks, Memo* memo) {
  const std::uint64_t n_ranks = ranks.ranks();
  check_rank_count(node.ranks, n_ranks);
  Metrics acc = algebra::empty();
  double sum_time = 0;
  for (std::size_t r = 0; r < ranks.lists.size(); ++r) {
    const Metrics t = eval_node<0, 0, Pass::balanced, Q>(node.child, ranks.lists[r], nullptr, memo,
                                                          static_cast<std::uint32_t>(r));
    for (std::uint32_t c = ranks.count(r); c > 0; --c) {
      algebra::accumulate_max(acc, t);
      sum_time += t.time_s;
    }
  }
  if (n_ranks != 0) acc.time_s = sum_time / static_cast<double>(n_ranks);
  return acc;
}

// Two rank rows a Fanout evaluates into: the rank being evaluated and the slowest so far,
// swapped by index instead of copied. Left uninitialised: every leaf of the child writes
// its slot before anything reads it (Metrics is an aggregate, so the byte storage holds
// its objects implicitly); zeroing and copying them was a tenth of a DP-group fan-out.
template <std::size_t N>
struct RankRows {
  alignas(Metrics) std::byte storage[2 * (N == 0 ? 1 : N) * sizeof(Metrics)];
  Metrics* operator[](std::size_t i) noexcept { return std::launder(reinterpret_cast<Metrics*>(storage)) + i * N; }
};

// A Fanout's fold: every run of ranks through the child (eval_run(r, keep, rank_row):
// run r's total, its slot row in rank_row, never written over `keep`, the slowest row so
// far), then one row of the slowest rank's times with all ranks' work, folded like any
// other row (so the manifest's Max over one child re-aggregates it exactly). A run's work
// is still added once per rank, in rank order, so the result is the expanded list's.
template <std::size_t Offset, Pass P, Quantities Q, class Node, class R, class EvalRun>
COSTDSL_INLINE Metrics fold_fanout(const Node& node, const RankLists<R>& ranks, Metrics* row, EvalRun&& eval_run) {
  constexpr std::size_t n = n_slots<decltype(node.child)>;
  check_rank_count(node.ranks, ranks.ranks());
  std::array<Metrics, n> merged{};
  const Metrics* slow = nullptr;
  double slowest_time = -1;
  for (std::size_t r = 0; r < ranks.lists.size(); ++r) {
    const Metrics* rank_row = nullptr;
    const Metrics t = eval_run(r, slow, rank_row);
    // As accumulate_max once per rank of the run: the max and the coverage are the same
    // each time, the work is added once per rank (in that order: bitwise the expanded list).
    const std::uint32_t run = ranks.count(r);
    if (run > 0)
      for (std::size_t i = 0; i < n; ++i) {
        Metrics& m = merged[i];
        algebra::accumulate_max(m, rank_row[i]);
        for (std::uint32_t c = 1; c < run; ++c) {
          m.flops += rank_row[i].flops;
          m.bytes += rank_row[i].bytes;
          m.energy_j += rank_row[i].energy_j;
        }
      }
    if (t.time_s > slowest_time) {
      slowest_time = t.time_s;
      slow = rank_row;
    }
  }
  if (slow != nullptr)
    for (std::size_t i = 0; i < n; ++i) {
      merged[i].time_s = slow[i].time_s;
      merged[i].backend = slow[i].backend;
    }
  if constexpr (P == Pass::row)
    for (std::size_t i = 0; i < n; ++i) row[Offset + i] = merged[i];
  return eval_node<0, 0, Pass::replay, Q>(node, Inputs<>{}, merged.data());
}

// A Fanout evaluated afresh: each run into whichever of two scratch rows does not hold
// the slowest rank so far (swapped by index instead of copied).
template <std::size_t Offset, Pass P, Quantities Q, class Node, class R, class Memo>
Metrics eval_fanout(const Node& node, const RankLists<R>& ranks, Metrics* row, Memo* memo) {
  RankRows<n_slots<decltype(node.child)>> rows;
  return fold_fanout<Offset, P, Q>(node, ranks, row, [&](std::size_t r, const Metrics* keep, const Metrics*& rank_row) {
    Metrics* into = keep == rows[0] ? rows[1] : rows[0];
    rank_row = into;
    return eval_node<0, 0, Pass::row, Q>(node.child, ranks.lists[r], into, memo, static_cast<std::uint32_t>(r));
  });
}

template <std::size_t Offset, std::size_t InOffset, Pass P, Quantities Q, class Node, class Ins, class Memo>
COSTDSL_INLINE Metrics eval_node(const Node& node, const Ins& in, Metrics* row, Memo* memo, std::uint32_t run) {
  if constexpr (RankFanout<Node> && P != Pass::replay) {
    if constexpr (P == Pass::balanced) {
      return eval_fanout_balanced<Q>(node, rank_lists(detail::get<InOffset>(in.items).value), memo);
    } else {
      return eval_fanout<Offset, P, Q>(node, rank_lists(detail::get<InOffset>(in.items).value), row, memo);
    }
  } else if constexpr (Node::node_kind == NodeKind::leaf) {
    if constexpr (P == Pass::replay) {
      return row[Offset];
    } else {
      // The balanced pass asks a slot that folds ranks itself (ops::RankFolded) for their mean.
      constexpr RankFold fold = P == Pass::balanced ? RankFold::mean : RankFold::max;
      const auto& value = detail::get<InOffset>(in.items).value;
      Metrics m;
      if constexpr (std::is_same_v<Memo, NoShare>) {
        m = eval_slot<Q, fold>(node.kernel, value);
      } else {
        m = memo->template eval<Node, Q, fold>(node.kernel, value, run);
      }
      if constexpr (P == Pass::row) row[Offset] = m;
      return m;
    }
  } else {
    return eval_children<Offset, InOffset, P, Q>(node, in, row, memo, run, std::make_index_sequence<n_children<Node>>{});
  }
}

template <class Tree, class Ins>
constexpr bool valid_call() {
  if constexpr (!check_unique_slots<Tree>()) {
    return false;
  } else {
    return input_check<input_list<Tree>, Ins>::ok();
  }
}

}  // namespace detail

// Total metrics of one iteration (Q: whether energy is computed, quantities.hpp).
template <Quantities Q = Quantities::time_and_work, CostNode Tree, class... I>
inline Metrics evaluate(const Tree& tree, const Inputs<I...>& in) {
  if constexpr (detail::valid_call<Tree, Inputs<I...>>()) {
    detail::ShareMemo<Tree> memo;
    return detail::eval_node<0, 0, detail::Pass::total, Q>(tree, in, nullptr, &memo);
  } else {
    return Metrics{};  // unreachable: a diagnostic has already stopped compilation
  }
}

// Total metrics, and each slot's metrics in slot order.
template <Quantities Q = Quantities::time_and_work, CostNode Tree, class... I>
inline Metrics evaluate(const Tree& tree, const Inputs<I...>& in, std::span<Metrics, n_slots<Tree>> row) {
  if constexpr (detail::valid_call<Tree, Inputs<I...>>()) {
    detail::ShareMemo<Tree> memo;
    return detail::eval_node<0, 0, detail::Pass::row, Q>(tree, in, row.data(), &memo);
  } else {
    return Metrics{};
  }
}

// The iteration under perfect load balance: every Max, every Fanout over its ranks and
// every slot over its ranks (the EP experts, the hp ranks' append and decode: ops::RankFolded)
// folded with the mean time instead of the max (Parallel unchanged); work as
// in evaluate(). total - balanced is the time lost to load imbalance. Report time
// only: it evaluates each rank of a Fanout once more.
template <Quantities Q = Quantities::time_and_work, CostNode Tree, class... I>
inline Metrics evaluate_balanced(const Tree& tree, const Inputs<I...>& in) {
  if constexpr (detail::valid_call<Tree, Inputs<I...>>()) {
    detail::ShareMemo<Tree> memo;
    return detail::eval_node<0, 0, detail::Pass::balanced, Q>(tree, in, nullptr, &memo);
  } else {
    return Metrics{};
  }
}

namespace detail {
template <std::size_t Offset, std::size_t InOffset, class Node, class Ins>
void bound_node(const Node& node, const Ins& in, double* bounds) {
  if constexpr (RankFanout<Node>) {
    // The rank whose leaves have the largest summed bound stands for the section.
    constexpr std::size_t n = n_slots<decltype(node.child)>;
    std::array<double, n> rank_bounds{};
    double best = -1;
    for (const auto& rank_in : rank_lists(detail::get<InOffset>(in.items).value).lists) {  // one per run
      bound_node<0, 0>(node.child, rank_in, rank_bounds.data());
      double total = 0;
      for (double b : rank_bounds) total += b;
      if (total > best) {
        best = total;
        for (std::size_t i = 0; i < n; ++i) bounds[Offset + i] = rank_bounds[i];
      }
    }
  } else if constexpr (Node::node_kind == NodeKind::leaf) {
    if constexpr (requires { node.kernel.lower_bound_s(detail::get<InOffset>(in.items).value); }) {
      bounds[Offset] = node.kernel.lower_bound_s(detail::get<InOffset>(in.items).value);
    } else {
      bounds[Offset] = 0;  // a kernel without a roofline bound contributes none
    }
  } else {
    for_each_child(node, [&](auto i, const auto& child) {
      bound_node<Offset + child_offsets<Node>[i], InOffset + child_input_offsets<Node>[i]>(child, in, bounds);
    });
  }
}
}  // namespace detail

// Each slot's hardware lower bound for these inputs (work at peak FLOP/s and
// HBM or link bandwidth, no efficiency): the "where the time goes" view. Build
// and report time only; not part of the per-iteration path.
template <CostNode Tree, class... I>
void evaluate_bounds(const Tree& tree, const Inputs<I...>& in, std::span<double, n_slots<Tree>> bounds) {
  if constexpr (detail::valid_call<Tree, Inputs<I...>>()) detail::bound_node<0, 0>(tree, in, bounds.data());
}

}  // namespace costdsl
