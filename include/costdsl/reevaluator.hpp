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
// (the kernels' Inputs). An input that refers to memory (a span of prefill chunks, a
// rank list) may name other data at the same address next call, so its leaf is evaluated
// every call, as is every leaf under a Fanout (its ranks share the child's slots). The
// fold over the slots (Pass::replay) is evaluate()'s own, so the total is evaluate()'s.
#include <array>
#include <cstddef>
#include <string_view>
#include <type_traits>

#include "costdsl/detail/node_rules.hpp"
#include "costdsl/eval_slot.hpp"
#include "costdsl/evaluate.hpp"
#include "costdsl/evaluate_many.hpp"
#include "costdsl/detail/tuple.hpp"
#include "costdsl/fields.hpp"
#include "costdsl/inputs.hpp"
#include "costdsl/metrics.hpp"
#include "costdsl/quantities.hpp"
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

// The last call's value inputs, one entry per input list entry (none kept for the others).
struct NotKept {};
template <class T>
using KeptInput = std::conditional_t<value_input<T>(), T, NotKept>;
template <class Ins>
struct LastInputs;
template <class... I>
struct LastInputs<Inputs<I...>> {
  using type = Tuple<KeptInput<typename I::value_type>...>;
};

// Every leaf of the subtree into rows[slot], except one whose value input equals the one
// in `last` (`have_last`: last holds the previous call's), whose row already holds its
// metrics; a value input evaluated is kept in `last` for the next call.
template <std::size_t Offset, std::size_t InOffset, Quantities Q, class Node, class Ins, class Last>
void reeval_leaves(const Node& node, const Ins& in, bool have_last, Last& last, Metrics* rows) {
  if constexpr (RankFanout<Node>) {
    eval_fanout<Offset, Pass::row, Q>(node, rank_lists(detail::get<InOffset>(in.items).value), rows);
  } else if constexpr (Node::node_kind == NodeKind::leaf) {
    const auto& v = detail::get<InOffset>(in.items).value;
    if constexpr (value_input<std::remove_cvref_t<decltype(v)>>()) {
      auto& kept = detail::get<InOffset>(last);
      if (have_last && same_bytes(v, kept)) return;
      kept = v;
    }
    rows[Offset] = eval_slot<Q>(node.kernel, v);
  } else {
    for_each_child(node, [&](auto i, const auto& child) {
      reeval_leaves<Offset + child_offsets<Node>[i], InOffset + child_input_offsets<Node>[i], Q>(child, in, have_last,
                                                                                                  last, rows);
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
      detail::reeval_leaves<0, 0, Q>(tree, in, &tree == tree_, last_, rows_.data());
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
  typename detail::LastInputs<Ins>::type last_{};
  std::array<Metrics, n_slots<Tree>> rows_{};
};

}  // namespace costdsl
