#pragma once
// for_each_leaf(tree, f): calls f(path, kernel) for every slot in slot order
// (build time: tools, profilers and benchmarks that need each leaf's config).
#include <string_view>

#include "costdsl/detail/node_rules.hpp"
#include "costdsl/slots.hpp"

namespace costdsl {

namespace detail {
template <FixedString Prefix, class Node, class F>
void visit_leaves(const Node& node, F& f) {
  if constexpr (Node::node_kind == NodeKind::leaf) {
    f(join_path<Prefix, Node::name>().view(), node.kernel);
  } else {
    for_each_child(node, [&](auto, const auto& child) { visit_leaves<prefix_below<Node, Prefix>>(child, f); });
  }
}
}  // namespace detail

template <CostNode Tree, class F>
void for_each_leaf(const Tree& tree, F&& f) {
  detail::visit_leaves<FixedString<0>{}>(tree, f);
}

}  // namespace costdsl
