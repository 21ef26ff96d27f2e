#pragma once
// evaluate_many(tree, inputs, out): out[i] = evaluate(tree, inputs[i]) for a batch of
// iterations (a simulator scoring candidate batches, a sweep), bit for bit.
//
//   std::vector<decltype(arch.inputs(batch))> in = ...;
//   std::vector<Metrics> out(in.size());
//   evaluate_many(tree, std::span(in), std::span(out));
//
// A tree without a Fanout is evaluated leaf by leaf over a block of iterations (each
// kernel's config, tables and code stay hot across the block), then each iteration's
// row is folded; a tree with one evaluates iteration by iteration. No allocation: the
// block's rows live on the stack.
//
// A sweep mostly varies one thing: decodes at a fixed prefill chunk, KV length at a fixed
// batch. A leaf whose input is byte for byte the previous iteration's copies that
// iteration's metrics instead of evaluating again: a leaf's metrics are a function of its
// input, and equal bytes are the same value (a span: the same elements, which no one
// changes during the call), so the copy is what evaluating would give, bit for bit.
#include <array>
#include <bit>
#include <cstddef>
#include <iterator>
#include <span>
#include <string>
#include <type_traits>
#include <utility>

#include "costdsl/detail/inline.hpp"
#include "costdsl/detail/node_rules.hpp"
#include "costdsl/error.hpp"
#include "costdsl/eval_slot.hpp"
#include "costdsl/evaluate.hpp"
#include "costdsl/metrics.hpp"
#include "costdsl/quantities.hpp"
#include "costdsl/slots.hpp"

namespace costdsl {

namespace detail {

// Every leaf of the subtree over iterations [0, count) of `ins`: rows[b * Stride + slot].
// `carried`: null, or ins[-1] exists and carried[slot] still holds its metrics (the
// previous, full block's last row, which this block overwrites only after b = 0).
// `memo`: the block's repeated slots (ShareMemo, run = the iteration in the block).
template <std::size_t Offset, std::size_t InOffset, std::size_t Stride, Quantities Q, class Node, class Ins, class Memo>
void eval_leaves(const Node& node, const Ins* ins, std::size_t count, const Metrics* carried, Metrics* rows,
                 Memo& memo) {
  if constexpr (Node::node_kind == NodeKind::leaf) {
    const auto input = [&](std::ptrdiff_t b) -> const auto& { return detail::get<InOffset>(ins[b].items).value; };
    const Metrics* prev = carried != nullptr ? carried + Offset : nullptr;
    for (std::size_t b = 0; b < count; ++b) {
      Metrics* slot = rows + b * Stride + Offset;
      const auto p = static_cast<std::ptrdiff_t>(b);
      const auto run = static_cast<std::uint32_t>(b);
      // A copy of the previous iteration's row is not offered to the class: its repeats
      // are copies too (offering each copy cost the KV sweep 8% more instructions).
      *slot = prev != nullptr && same_bytes(input(p), input(p - 1))
                  ? *prev
                  : memo.template eval<Node, Q, RankFold::max>(node.kernel, input(p), run);
      prev = slot;
    }
  } else {
    for_each_child(node, [&](auto i, const auto& child) {
      eval_leaves<Offset + child_offsets<Node>[i], InOffset + child_input_offsets<Node>[i], Stride, Q>(
          child, ins, count, carried, rows, memo);
    });
  }
}

}  // namespace detail

// inputs: any contiguous range of input lists (a span, a vector, an array).
template <Quantities Q = Quantities::time_and_work, CostNode Tree, class R>
  requires requires(const R& r) {
    std::data(r);
    std::size(r);
  }
void evaluate_many(const Tree& tree, const R& inputs, std::span<Metrics> out) {
  using Ins = std::remove_cvref_t<decltype(*std::data(inputs))>;
  if constexpr (detail::valid_call<Tree, Ins>()) {
    const std::size_t n_in = std::size(inputs);
    if (out.size() != n_in)
      throw InputError("evaluate_many: " + std::to_string(n_in) + " inputs, " + std::to_string(out.size()) +
                       " results");
    const Ins* in = std::data(inputs);
    if constexpr (detail::contains_fanout<Tree>::value) {
      for (std::size_t i = 0; i < n_in; ++i) {
        detail::ShareMemo<Tree> memo;
        out[i] = detail::eval_node<0, 0, detail::Pass::total, Q>(tree, in[i], nullptr, &memo);
      }
    } else {
      constexpr std::size_t n = n_slots<Tree>;
      // Iterations per block: up to 16, and at most 512 slot rows (20 KB of stack) in all.
      constexpr std::size_t block = n == 0 ? 1 : (512 / n < 1 ? 1 : (512 / n > 16 ? 16 : 512 / n));
      std::array<Metrics, block * n> rows;
      for (std::size_t first = 0; first < n_in; first += block) {
        const std::size_t count = n_in - first < block ? n_in - first : block;
        detail::ShareMemo<Tree, std::bit_ceil(block)> memo;
        detail::eval_leaves<0, 0, n, Q>(tree, in + first, count, first > 0 ? rows.data() + (block - 1) * n : nullptr,
                                        rows.data(), memo);
        for (std::size_t b = 0; b < count; ++b)
          out[first + b] = detail::eval_node<0, 0, detail::Pass::replay, Q>(tree, Inputs<>{}, rows.data() + b * n);
      }
    }
  }
}

}  // namespace costdsl
