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

enum class NodeKind : std::uint8_t { leaf, sum, max, parallel, scale, labeled };

constexpr std::string_view name(NodeKind k) noexcept {
  switch (k) {
    case NodeKind::leaf: return "leaf";
    case NodeKind::sum: return "sum";
    case NodeKind::max: return "max";
    case NodeKind::parallel: return "parallel";
    case NodeKind::scale: return "scale";
    case NodeKind::labeled: return "labeled";
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

// What `when(false_, x)` leaves behind; node and input factories drop it.
struct Absent {};

}  // namespace costdsl
