#pragma once
// Labeled<"name">: render-only identity. Its name is one segment of every slot
// path below it ("model.layer.attn.qkv_proj"); its label text (worklet type and
// partition summary) appears in describe() and the manifest. Numerically it is
// transparent, and neither string is touched on the per-iteration path (INV-5).
#include <string>
#include <utility>

#include "costdsl/concepts.hpp"
#include "costdsl/detail/node_rules.hpp"
#include "costdsl/fixed_string.hpp"
#include "costdsl/metrics.hpp"

namespace costdsl {

template <FixedString Name, CostNode C>
struct Labeled {
  static_assert(Name.view().find('.') == std::string_view::npos,
                "costdsl: a Labeled name is one path segment and may not contain '.'");
  static constexpr NodeKind node_kind = NodeKind::labeled;
  static constexpr auto name = Name;
  std::string label;
  C child;
};

namespace algebra {
// A Labeled node's fold: its child, untouched.
struct LabeledFold {
  Metrics acc = empty();
  COSTDSL_ALWAYS_INLINE constexpr void add(const Metrics& c) noexcept { acc = c; }
  COSTDSL_ALWAYS_INLINE constexpr Metrics result() const noexcept { return acc; }
};
}  // namespace algebra

template <FixedString Name, class C>
struct node_traits<Labeled<Name, C>> : detail::one_child<C> {
  static constexpr auto segment = Name;
  template <RankFold>
  COSTDSL_ALWAYS_INLINE static constexpr algebra::LabeledFold fold(const Labeled<Name, C>&) noexcept {
    return {};
  }
  static LoweredNode lowered(const Labeled<Name, C>& node) noexcept { return {NodeKind::labeled, 0, node.label}; }
};

template <FixedString Name, CostNode C>
Labeled<Name, C> labeled(std::string label, C child) {
  return {std::move(label), std::move(child)};
}

}  // namespace costdsl
