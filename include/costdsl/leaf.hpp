#pragma once
// Leaf<"name", Kernel>: one slot, one L1 kernel launch (or one fixed sequence).
#include <utility>

#include <boost/mp11/list.hpp>

#include "costdsl/concepts.hpp"
#include "costdsl/fixed_string.hpp"

namespace costdsl {

template <FixedString Name, SlotKernel K>
struct Leaf {
  static_assert(Name.size() > 0, "costdsl: a leaf needs a non-empty slot name");
  static_assert(Name.view().find('.') == std::string_view::npos,
                "costdsl: a slot name may not contain '.'; dots join the path of Labeled names");
  static constexpr NodeKind node_kind = NodeKind::leaf;
  static constexpr auto name = Name;
  using kernel_type = K;
  K kernel;
};

// The base case of every walker: no children; its slot path is the prefix joined
// with its name.
template <FixedString Name, class K>
struct node_traits<Leaf<Name, K>> {
  using children = boost::mp11::mp_list<>;
  static constexpr auto segment = Name;
  static constexpr LoweredNode lowered(const Leaf<Name, K>&) noexcept { return {NodeKind::leaf, 0, {}}; }
};

template <FixedString Name, SlotKernel K>
constexpr Leaf<Name, K> leaf(K kernel) {
  return {std::move(kernel)};
}

}  // namespace costdsl
