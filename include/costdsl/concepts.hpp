#pragma once
// The cheap header: what a cost-tree node and a slot kernel are. Include this
// (not the node headers) to constrain your own templates.
#include <concepts>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "costdsl/family.hpp"
#include "costdsl/metrics.hpp"

namespace costdsl {

// fanout is a static node's kind only: the runtime twin (flat_tree.hpp) and the manifest
// hold a Fanout as what it lowers to, a max with `ranks` over its one child.
enum class NodeKind : std::uint8_t { leaf, sum, max, parallel, scale, labeled, fanout };

constexpr std::string_view name(NodeKind k) noexcept {
  switch (k) {
    case NodeKind::leaf: return "leaf";
    case NodeKind::sum: return "sum";
    case NodeKind::max: return "max";
    case NodeKind::parallel: return "parallel";
    case NodeKind::scale: return "scale";
    case NodeKind::labeled: return "labeled";
    case NodeKind::fanout: return "fanout";
  }
  return "?";
}

struct ConfigField;  // config_field.hpp

// What a leaf wraps: an L1 kernel bound to its timing source. `eval` is the hot
// path (one lookup, no allocation); the rest is build-time only (INV-5).
template <class K>
concept SlotKernel = std::copy_constructible<K> && requires(const K& k, const typename K::Input& in) {
  { K::kind } -> std::convertible_to<std::string_view>;
  { k.eval(in) } -> std::same_as<Metrics>;
  { k.config_fields() } -> std::same_as<std::vector<ConfigField>>;
  { k.backends() } -> std::convertible_to<std::vector<std::string>>;
};

// A slot kernel's family: its K::family, or `other` for one that declares none.
template <class K>
inline constexpr Family slot_family_v = [] {
  if constexpr (requires { K::family; }) {
    return Family{K::family};
  } else {
    return Family::other;
  }
}();

// A node of a static cost tree: Leaf, Sum, Max, Parallel, Scale or Labeled.
template <class N>
concept CostNode = requires {
  { std::remove_cvref_t<N>::node_kind } -> std::convertible_to<NodeKind>;
};

// How a fan-out over ranks (a Max, a Fanout) folds its children's times: the
// slowest rank, or their mean (the balanced view: perfect load balance).
enum class RankFold : std::uint8_t { max, mean };

// What a node lowers to in the runtime twin (flat_tree.hpp): its kind, parameter
// (Scale: n; Parallel: overlap; a Fanout: its ranks) and label text (Labeled).
struct LoweredNode {
  NodeKind kind = NodeKind::leaf;
  double param = 0;
  std::string_view label;
};

// A node kind's rules, specialised once beside each node (sum.hpp, max.hpp, ...):
//   children           mp_list of the child node types, in slot order
//   child<I>(node)     the I-th child
//   segment            the slot-path segment it adds below it (Labeled: its name)
//   fold<F>(node)      an accumulator: add(child's metrics) in order, then result()
//   lowered(node)      its runtime-twin node (LoweredNode)
// Every walker (slot list, evaluate, bounds, visit, lowering, evaluate_many) reads
// these and nothing else, so a new node kind is its own header. A Leaf's fold and
// segment are unused: the leaf is every walker's base case.
template <class Node>
struct node_traits;

// What `when(false_, x)` leaves behind; node and input factories drop it.
struct Absent {};

}  // namespace costdsl
