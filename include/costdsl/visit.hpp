#pragma once
// for_each_leaf(tree, f): calls f(path, kernel) for every slot in slot order
// (build time: tools, profilers and benchmarks that need each leaf's config).
#include <string_view>

#include "costdsl/detail/tuple.hpp"
#include "costdsl/slots.hpp"

namespace costdsl {

namespace detail {
template <FixedString Prefix, class Node, class F>
void visit_leaves(const Node& node, F& f) {
  if constexpr (Node::node_kind == NodeKind::leaf) {
    f(join_path<Prefix, Node::name>().view(), node.kernel);
  } else if constexpr (Node::node_kind == NodeKind::labeled) {
    visit_leaves<join_path<Prefix, Node::name>()>(node.child, f);
  } else if constexpr (Node::node_kind == NodeKind::scale || RankFanout<Node>) {
    visit_leaves<Prefix>(node.child, f);
  } else {
    detail::apply([&](const auto&... c) { (visit_leaves<Prefix>(c, f), ...); }, node.children);
  }
}
}  // namespace detail

template <CostNode Tree, class F>
void for_each_leaf(const Tree& tree, F&& f) {
  detail::visit_leaves<FixedString<0>{}>(tree, f);
}

}  // namespace costdsl
