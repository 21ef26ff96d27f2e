#pragma once
// Reevaluator: evaluate(tree, in) for a caller that evaluates one tree again and again
// (a simulator's successive iterations), bit for bit, evaluating only the leaves whose
// input changed since its last call; every other leaf keeps the metrics it had.
//
//   Reevaluator<Tree, Ins> again;
//   for (...) clock += again(tree, feed(batch)).time_s;
//
// Most of a serving iteration repeats the last one: a full token budget gives every
// GEMM, norm and collective the same token count, and a decode-only stretch changes only
// the attention leaves' KV lengths. A leaf's metrics are a function of its kernel and its
// input, so a leaf whose kernel (the same tree object) and input (the same bytes) are
// last call's has last call's metrics.
//
// Only inputs that are values are compared: numbers, enums and reflected structs of them
// (the kernels' Inputs). An input that refers to memory (a span of prefill chunks) may
// name other data at the same address next call, so its leaf is evaluated every call.
// Under a Fanout (DP attention groups) the ranks share the child's slots: each run of
// ranks keeps its own inputs and rows, by its index in the run list, so a group whose
// GEMMs see the token count they saw last call keeps their rows too (the run at an index
// may stand for other ranks now: equal bytes still mean equal metrics). The folds (the
// slot tree's replay pass, the Fanout's merge) are evaluate()'s own, so the total is
// evaluate()'s. Within a call, a leaf that must be evaluated copies a repeated slot's
// answer as evaluate() does (detail/shared_slots.hpp).
#include <array>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <string_view>
#include <type_traits>
#include <vector>

#include "costdsl/detail/node_rules.hpp"
#include "costdsl/eval_slot.hpp"
#include "costdsl/evaluate.hpp"
#include "costdsl/evaluate_many.hpp"
#include "costdsl/detail/tuple.hpp"
#include "costdsl/fields.hpp"
#include "costdsl/inputs.hpp"
#include "costdsl/metrics.hpp"
#include "costdsl/quantities.hpp"
#include "costdsl/rank_runs.hpp"
#include "costdsl/slots.hpp"

namespace costdsl {

namespace detail {

// A value whose bytes say all of it: no pointer, no owned memory.
template <class T>
constexpr bool value_input() {
  if constexpr (std::is_arithmetic_v<T> || std::is_enum_v<T>) {
    return true;
  } else if constexpr (Reflected<T> && std::is_trivially_copyable_v<T> && std::is_default_constructible_v<T>) {
    bool all = true;
    const T t{};
    for_each_field(t, [&](std::string_view, const auto& f) {
      all = all && value_input<std::remove_cvref_t<decltype(f)>>();
    });
    return all;
  } else {
    return false;
  }
}

// What a call keeps of each input list entry for the next: a value input itself; for a
// Fanout's rank lists, each run's kept inputs and slot rows; nothing for the rest.
struct NotKept {};
template <class Ins>
struct LastInputs;
template <class R>
struct FanoutMemory;
// The input list type of one rank of a Fanout's input (rank_lists() reads it), else void.
template <class T>
struct RankListOf {
  using type = void;
};
template <class R>
struct RankListOf<RankRuns<R>> {
  using type = R;
};
template <class T>
  requires requires(const T& t) {
    std::data(t);
    std::size(t);
  }
struct RankListOf<T> {
  using type = std::remove_cvref_t<decltype(*std::data(std::declval<const T&>()))>;
};
template <class T, class R = typename RankListOf<T>::type>
struct Kept {
  using type = std::conditional_t<value_input<T>(), T, NotKept>;
};
template <class T, class... I>
struct Kept<T, Inputs<I...>> {
  using type = FanoutMemory<Inputs<I...>>;
};
template <class... I>
struct LastInputs<Inputs<I...>> {
  using type = Tuple<typename Kept<typename I::value_type>::type...>;
};

// One run index's memory: the kept inputs of the run last evaluated there (its slot rows
// are the FanoutMemory's r-th row) and the Reevaluator epoch they belong to (another tree,
// or a reset, starts a new epoch).
template <class R>
struct RunMemory {
  std::uint64_t epoch = 0;
  typename LastInputs<R>::type last{};
};
template <class R>
struct FanoutMemory {
  std::vector<RunMemory<R>> runs;
  std::vector<Metrics> rows;  // runs × the child's slots; grown, never shrunk
};

// Every leaf of the subtree into rows[slot], except one whose value input equals the one
// in `last` (`have_last`: last and rows hold epoch `epoch`'s previous call), whose row
// already holds its metrics; a value input evaluated is kept in `last` for the next call.
// `memo`: this call's repeated slots (ShareMemo; `run` the Fanout run).
template <std::size_t Offset, std::size_t InOffset, Quantities Q, class Node, class Ins, class Last, class Memo>
void reeval_leaves(const Node& node, const Ins& in, std::uint64_t epoch, bool have_last, Last& last, Metrics* rows,
                   Memo& memo, std::uint32_t run) {
  if constexpr (RankFanout<Node>) {
    constexpr std::size_t n = n_slots<decltype(node.child)>;
    const auto ranks = rank_lists(detail::get<InOffset>(in.items).value);
    auto& memory = detail::get<InOffset>(last);
    if (memory.runs.size() < ranks.lists.size()) {
      memory.runs.resize(ranks.lists.size());
      memory.rows.resize(ranks.lists.size() * n);
    }
    fold_fanout<Offset, Pass::row, Q>(node, ranks, rows, [&](std::size_t r, const Metrics*, const Metrics*& rank_row) {
      auto& run = memory.runs[r];
      Metrics* run_rows = memory.rows.data() + r * n;
      reeval_leaves<0, 0, Q>(node.child, ranks.lists[r], epoch, run.epoch == epoch, run.last, run_rows, memo,
                             static_cast<std::uint32_t>(r));
      run.epoch = epoch;
      rank_row = run_rows;
      return eval_node<0, 0, Pass::replay, Q>(node.child, Inputs<>{}, run_rows);
    });
  } else if constexpr (Node::node_kind == NodeKind::leaf) {
    const auto& v = detail::get<InOffset>(in.items).value;
    if constexpr (value_input<std::remove_cvref_t<decltype(v)>>()) {
      auto& kept = detail::get<InOffset>(last);
      // A kept row is not offered to the class: a repeat of an unchanged slot is
      // unchanged too and kept itself (offering every kept row cost more than it saved).
      if (have_last && same_bytes(v, kept)) return;
      kept = v;
    }
    rows[Offset] = memo.template eval<Node, Q, RankFold::max>(node.kernel, v, run);
  } else {
    for_each_child(node, [&](auto i, const auto& child) {
      reeval_leaves<Offset + child_offsets<Node>[i], InOffset + child_input_offsets<Node>[i], Q>(
          child, in, epoch, have_last, last, rows, memo, run);
    });
  }
}

}  // namespace detail

template <CostNode Tree, class Ins, Quantities Q = Quantities::time_and_work>
class Reevaluator {
 public:
  // evaluate<Q>(tree, in), bit for bit. A tree other than last call's starts afresh.
  Metrics operator()(const Tree& tree, const Ins& in) {
    if constexpr (detail::valid_call<Tree, Ins>()) {
      if (&tree != tree_) ++epoch_;
      detail::ShareMemo<Tree> memo;
      detail::reeval_leaves<0, 0, Q>(tree, in, epoch_, &tree == tree_, last_, rows_.data(), memo, 0);
      tree_ = &tree;
      return detail::eval_node<0, 0, detail::Pass::replay, Q>(tree, Inputs<>{}, rows_.data());
    } else {
      return Metrics{};  // unreachable: a diagnostic has already stopped compilation
    }
  }

  // Forget the last call: the next one evaluates every leaf.
  void reset() noexcept { tree_ = nullptr; }

 private:
  const Tree* tree_ = nullptr;  // whose leaves rows_ and last_ hold (null: none yet)
  std::uint64_t epoch_ = 0;     // run memories of another epoch are not trusted
  typename detail::LastInputs<Ins>::type last_{};
  std::array<Metrics, n_slots<Tree>> rows_{};
};

}  // namespace costdsl
