#pragma once
// The shared parts of the node_traits specialisations (concepts.hpp) and the one
// child walk every walker uses.
#include <cstddef>
#include <type_traits>
#include <utility>

#include <boost/mp11/list.hpp>

#include "costdsl/concepts.hpp"
#include "costdsl/detail/inline.hpp"
#include "costdsl/detail/tuple.hpp"
#include "costdsl/fixed_string.hpp"

namespace costdsl::detail {

// A node whose children are a Tuple member `children` (Sum, Max, Parallel).
template <class... C>
struct tuple_children {
  using children = boost::mp11::mp_list<C...>;
  static constexpr FixedString<0> segment{};
  template <std::size_t I, class Node>
  COSTDSL_INLINE static constexpr const auto& child(const Node& node) noexcept {
    return detail::get<I>(node.children);
  }
};

// A node with one member `child` (Scale, Labeled, Fanout).
template <class C>
struct one_child {
  using children = boost::mp11::mp_list<C>;
  static constexpr FixedString<0> segment{};
  template <std::size_t I, class Node>
  COSTDSL_INLINE static constexpr const auto& child(const Node& node) noexcept {
    return node.child;
  }
};

template <class Node>
using children_t = typename node_traits<std::remove_cvref_t<Node>>::children;

template <class Node>
inline constexpr std::size_t n_children = boost::mp11::mp_size<children_t<Node>>::value;

template <std::size_t I, class Node>
COSTDSL_INLINE constexpr const auto& child(const Node& node) noexcept {
  return node_traits<Node>::template child<I>(node);
}

// f(std::integral_constant<std::size_t, I>{}, child<I>(node)) for each child in order.
template <class Node, class F>
constexpr void for_each_child(const Node& node, F&& f) {
  [&]<std::size_t... I>(std::index_sequence<I...>) {
    (f(std::integral_constant<std::size_t, I>{}, detail::child<I>(node)), ...);
  }(std::make_index_sequence<n_children<Node>>{});
}

// The path prefix below Node: Prefix joined with the node's segment.
template <class Node, FixedString Prefix>
inline constexpr auto prefix_below = join_path<Prefix, node_traits<Node>::segment>();

}  // namespace costdsl::detail
