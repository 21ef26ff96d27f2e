#pragma once
// Per-slot inputs: a flat list of values tagged with their slot's dotted path.
//
//   auto in = inputs(input<"norm">(RowsInput{m}), input<"qkv">(GemmInput{m}));
//   auto all = inputs(nest<"attn">(attn_in), nest<"mlp">(mlp_in));
//
// evaluate() requires the list to match the tree's slot list element by element
// (same paths, same order, each value of its kernel's Input type); anything else
// is a compile error naming the first mismatching slot.
#include <type_traits>
#include <utility>

#include "costdsl/concepts.hpp"
#include "costdsl/detail/inline.hpp"
#include "costdsl/detail/tuple.hpp"
#include "costdsl/fixed_string.hpp"

namespace costdsl {

template <FixedString Path, class T>
struct In {
  static constexpr auto path = Path;
  using value_type = T;
  T value;
};

template <class... I>
struct Inputs {
  detail::Tuple<I...> items;
};

template <FixedString Path, class T>
constexpr In<Path, std::remove_cvref_t<T>> input(T&& value) {
  return {std::forward<T>(value)};
}

namespace detail {
// A nested Inputs list is spliced in place: hand splice() its items.
template <class T>
constexpr decltype(auto) input_part(T&& x) {
  if constexpr (requires { x.items; }) {
    return (std::forward<T>(x).items);
  } else {
    return std::forward<T>(x);
  }
}
template <class... I>
constexpr Inputs<I...> inputs_from(Tuple<I...>&& items) {
  return {std::move(items)};
}
}  // namespace detail

// A flat list from inputs, nested lists (spliced) and Absent (dropped).
template <class... X>
COSTDSL_INLINE constexpr auto inputs(X&&... x) {
  return detail::inputs_from(detail::splice(detail::input_part(std::forward<X>(x))...));
}

namespace detail {
template <FixedString Prefix, class I>
using nested_t = In<join_path<Prefix, I::path>(), typename I::value_type>;
}  // namespace detail

// Prefixes every path with one segment: what a Labeled<Prefix> node does to its slots.
// Values are moved, never copied (a slot input may be move-only).
template <FixedString Prefix, class... I>
COSTDSL_INLINE constexpr auto nest(Inputs<I...> list) {
  return [&]<std::size_t... J>(std::index_sequence<J...>) {
    return Inputs<detail::nested_t<Prefix, I>...>{
        {{{detail::nested_t<Prefix, I>{std::move(detail::get<J>(list.items).value)}}...}}};
  }(std::index_sequence_for<I...>{});
}

}  // namespace costdsl
