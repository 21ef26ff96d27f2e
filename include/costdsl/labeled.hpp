#pragma once
// Labeled<"name">: render-only identity. Its name is one segment of every slot
// path below it ("model.layer.attn.qkv_proj"); its label text (worklet type and
// partition summary) appears in describe() and the manifest. Numerically it is
// transparent, and neither string is touched on the per-iteration path (INV-5).
#include <string>
#include <utility>

#include "costdsl/concepts.hpp"
#include "costdsl/fixed_string.hpp"

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

template <FixedString Name, CostNode C>
Labeled<Name, C> labeled(std::string label, C child) {
  return {std::move(label), std::move(child)};
}

}  // namespace costdsl
