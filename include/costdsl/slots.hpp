#pragma once
// The slot list of a tree type, computed at compile time: each leaf's dotted
// path and kernel type in visit order (left to right, depth first). Numbering,
// input matching, evaluation and lowering all walk this one list (INV-2).
// A Scale subtree's slots appear once, and so do a Fanout's.
//
// The input list (input_list) follows the slot list one entry per slot, except that
// a Fanout subtree takes one entry: the per-rank input lists of its child.
#include <array>
#include <span>
#include <cstddef>
#include <string_view>

#include <boost/mp11/algorithm.hpp>
#include <boost/mp11/list.hpp>

#include "costdsl/concepts.hpp"
#include "costdsl/detail/node_rules.hpp"
#include "costdsl/fanout.hpp"
#include "costdsl/fixed_string.hpp"
#include "costdsl/inputs.hpp"
#include "costdsl/labeled.hpp"
#include "costdsl/leaf.hpp"
#include "costdsl/max.hpp"
#include "costdsl/parallel.hpp"
#include "costdsl/scale.hpp"
#include "costdsl/sum.hpp"

namespace costdsl {

template <FixedString Path, class K>
struct Slot {
  static constexpr auto path = Path;
  using kernel_type = K;
};

// The input-list entry of a Fanout at Path: one input list per rank.
template <FixedString Path, class RankInputs>
struct FanoutSlot {
  static constexpr auto path = Path;
  using rank_inputs = RankInputs;
};

namespace detail {

// The value type an input-list entry holds.
template <class S>
struct entry_value {
  using type = typename S::kernel_type::Input;
};
template <FixedString Path, class R>
struct entry_value<FanoutSlot<Path, R>> {
  using type = std::span<const R>;
};

template <class List>
struct as_inputs;
template <class... S>
struct as_inputs<boost::mp11::mp_list<S...>> {
  using type = Inputs<In<S::path, typename entry_value<S>::type>...>;
};

// One walk yields both lists: with FanoutEntry false every leaf is one Slot (the slot
// list); with it true each Fanout subtree is one FanoutSlot (the input list). Every
// other node contributes its children's lists in order under its path segment.
template <class Node, FixedString Prefix, bool FanoutEntry>
struct walk;

template <class Children, FixedString Prefix, bool FanoutEntry>
struct walk_children;
template <class... C, FixedString Prefix, bool FanoutEntry>
struct walk_children<boost::mp11::mp_list<C...>, Prefix, FanoutEntry> {
  using type = boost::mp11::mp_append<boost::mp11::mp_list<>, typename walk<C, Prefix, FanoutEntry>::type...>;
};

template <class Node, FixedString Prefix, bool FanoutEntry>
struct walk {
  using type = typename walk_children<children_t<Node>, prefix_below<Node, Prefix>, FanoutEntry>::type;
};
template <FixedString Name, class K, FixedString Prefix, bool FanoutEntry>
struct walk<Leaf<Name, K>, Prefix, FanoutEntry> {
  using type = boost::mp11::mp_list<Slot<join_path<Prefix, Name>(), K>>;
};
template <class C, FixedString Prefix>
struct walk<Fanout<C>, Prefix, true> {
  using type = boost::mp11::mp_list<
      FanoutSlot<Prefix, typename as_inputs<typename walk<C, FixedString<0>{}, true>::type>::type>>;
};

}  // namespace detail

// The slots of a tree type: mp_list<Slot<"model.layer.attn.qkv_proj", Kernel>, ...>.
template <CostNode Tree>
using slot_list = typename detail::walk<std::remove_cvref_t<Tree>, FixedString<0>{}, false>::type;

template <CostNode Tree>
inline constexpr std::size_t n_slots = boost::mp11::mp_size<slot_list<Tree>>::value;

// What evaluate() takes: one entry per slot, one per Fanout (see FanoutSlot).
template <CostNode Tree>
using input_list = typename detail::walk<std::remove_cvref_t<Tree>, FixedString<0>{}, true>::type;

template <CostNode Tree>
inline constexpr std::size_t n_inputs = boost::mp11::mp_size<input_list<Tree>>::value;

// The Inputs type of one rank of a Fanout whose child is C (paths relative to C).
template <CostNode C>
using rank_inputs_t = typename detail::as_inputs<typename detail::walk<C, FixedString<0>{}, true>::type>::type;

// The dotted paths of a tree's slots, in slot order.
template <CostNode Tree>
inline constexpr auto slot_paths = []<class... S>(boost::mp11::mp_list<S...>) {
  return std::array<std::string_view, sizeof...(S)>{S::path.view()...};
}(slot_list<Tree>{});

namespace detail {
// First slot index of each child, relative to the parent.
template <class Node>
inline constexpr auto child_offsets = []<class... C>(boost::mp11::mp_list<C...>) {
  std::array<std::size_t, sizeof...(C)> offsets{};
  std::size_t next = 0, i = 0;
  ((offsets[i++] = next, next += n_slots<C>), ...);
  return offsets;
}(children_t<Node>{});

// First input-list index of each child, relative to the parent.
template <class Node>
inline constexpr auto child_input_offsets = []<class... C>(boost::mp11::mp_list<C...>) {
  std::array<std::size_t, sizeof...(C)> offsets{};
  std::size_t next = 0, i = 0;
  ((offsets[i++] = next, next += n_inputs<C>), ...);
  return offsets;
}(children_t<Node>{});

// Index of the first repeated path, or n when all are distinct.
template <CostNode Tree>
constexpr std::size_t first_duplicate_slot() {
  constexpr auto& paths = slot_paths<Tree>;
  for (std::size_t i = 0; i < paths.size(); ++i)
    for (std::size_t j = 0; j < i; ++j)
      if (paths[i] == paths[j]) return i;
  return paths.size();
}
}  // namespace detail

namespace diagnostic {
template <FixedString Path>
struct duplicate_slot_path {
  static_assert(always_false<Path>,
                "costdsl: two slots share a dotted path; wrap repeated subtrees in Labeled nodes with distinct names "
                "(see duplicate_slot_path<path> above)");
};
}  // namespace diagnostic

// true, or a compile error naming the first repeated slot path.
template <CostNode Tree>
constexpr bool check_unique_slots() {
  constexpr std::size_t dup = detail::first_duplicate_slot<Tree>();
  if constexpr (dup < n_slots<Tree>) {
    using S = boost::mp11::mp_at_c<slot_list<Tree>, dup>;
    diagnostic::fail<diagnostic::duplicate_slot_path<S::path>, int>();
    return false;
  } else {
    return true;
  }
}

}  // namespace costdsl
