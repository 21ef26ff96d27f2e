#pragma once
// Per-slot inputs: a flat list of values tagged with their slot's dotted path.
//
//   auto in = inputs(input<"norm">(RowsInput{m}), input<"qkv">(GemmInput{m}));
//   auto all = inputs(nest<"attn">(attn_in), nest<"mlp">(mlp_in));
//
// evaluate() requires the list to match the tree's slot list element by element
// (same paths, same order, each value of its kernel's Input type); anything else
// is a compile error naming the first mismatching slot.
#include <tuple>
#include <type_traits>
#include <utility>

#include "costdsl/concepts.hpp"
#include "costdsl/detail/pack.hpp"
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
  std::tuple<I...> items;
};

template <FixedString Path, class T>
constexpr In<Path, std::remove_cvref_t<T>> input(T&& value) {
  return {std::forward<T>(value)};
}

namespace detail {
template <class T>
constexpr auto as_tuple(T&& x) {
  using U = std::remove_cvref_t<T>;
  if constexpr (std::is_same_v<U, Absent>) {
    return std::tuple<>{};
  } else if constexpr (requires { x.items; }) {
    return std::forward<T>(x).items;  // a nested Inputs list is spliced in place
  } else {
    return std::tuple<U>{std::forward<T>(x)};
  }
}
template <class... I>
constexpr Inputs<I...> from_tuple(std::tuple<I...>&& t) {
  return {std::move(t)};
}
}  // namespace detail

// A flat list from inputs, nested lists (spliced) and Absent (dropped).
template <class... X>
constexpr auto inputs(X&&... x) {
  return detail::from_tuple(std::tuple_cat(detail::as_tuple(std::forward<X>(x))...));
}

namespace detail {
template <FixedString Prefix, class I>
using nested_t = In<join_path<Prefix, I::path>(), typename I::value_type>;
}  // namespace detail

// Prefixes every path with one segment: what a Labeled<Prefix> node does to its slots.
// Values are moved, never copied (a slot input may be move-only).
template <FixedString Prefix, class... I>
constexpr auto nest(Inputs<I...> list) {
  return std::apply(
      [](auto&&... item) {
        using Items = std::tuple<detail::nested_t<Prefix, std::remove_cvref_t<decltype(item)>>...>;
        return detail::from_tuple(
            Items(detail::nested_t<Prefix, std::remove_cvref_t<decltype(item)>>{std::move(item.value)}...));
      },
      std::move(list.items));
}

}  // namespace costdsl
