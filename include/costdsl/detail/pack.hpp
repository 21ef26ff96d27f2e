#pragma once
// Building composite nodes and input lists from packs that may hold Absent.
#include <tuple>
#include <type_traits>
#include <utility>

#include "costdsl/concepts.hpp"

namespace costdsl::detail {

template <class T>
constexpr auto keep_present(T&& x) {
  if constexpr (std::is_same_v<std::remove_cvref_t<T>, Absent>) {
    return std::tuple<>{};
  } else {
    return std::tuple<std::remove_cvref_t<T>>{std::forward<T>(x)};
  }
}

// The tuple of the arguments that are not Absent, in order.
template <class... T>
constexpr auto without_absent(T&&... x) {
  return std::tuple_cat(keep_present(std::forward<T>(x))...);
}

}  // namespace costdsl::detail
