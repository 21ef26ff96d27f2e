#pragma once
// Lowering a static tree to its runtime twin and manifest (build time only).
#include <string>
#include <utility>
#include <vector>

#include "costdsl/detail/node_rules.hpp"
#include "costdsl/flat_tree.hpp"
#include "costdsl/manifest.hpp"
#include "costdsl/slots.hpp"

namespace costdsl {

namespace detail {
template <FixedString Prefix, class Node>
RuntimeNode to_runtime(const Node& node, std::vector<SlotDescription>* slots) {
  if constexpr (Node::node_kind == NodeKind::leaf) {
    constexpr auto path = join_path<Prefix, Node::name>();
    const auto& k = node.kernel;
    if (slots) {
      slots->push_back({std::string(path.view()), std::string(Node::kernel_type::kind),
                        slot_family_v<typename Node::kernel_type>,
                        k.config_fields(), std::vector<std::string>(k.backends()), {}});
      if constexpr (requires { k.provenance(); }) slots->back().provenance = k.provenance();
    }
    return RuntimeNode::leaf(std::string(path.view()));
  } else {
    const LoweredNode self = node_traits<Node>::lowered(node);
    RuntimeNode r{self.kind, self.param, std::string(self.label), {}};
    r.children.reserve(n_children<Node>);
    for_each_child(node, [&](auto, const auto& child) {
      r.children.push_back(to_runtime<prefix_below<Node, Prefix>>(child, slots));
    });
    return r;
  }
}
}  // namespace detail

// The nested runtime description of a static tree (same shape, same slot order).
template <CostNode Tree>
RuntimeNode to_runtime(const Tree& tree) {
  static_assert(check_unique_slots<Tree>());
  return detail::to_runtime<FixedString<0>{}>(tree, nullptr);
}

// The BFS-flat twin of a static tree.
template <CostNode Tree>
FlatTree lower(const Tree& tree) {
  return FlatTree::from_runtime(to_runtime(tree));
}

template <CostNode Tree>
Manifest make_manifest(const Tree& tree) {
  static_assert(check_unique_slots<Tree>());
  Manifest m;
  m.tree = FlatTree::from_runtime(detail::to_runtime<FixedString<0>{}>(tree, &m.slots));
  return m;
}

}  // namespace costdsl
