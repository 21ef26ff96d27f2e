#pragma once
// sum_of: one flat Sum from slot tuples and single slots, for worklets that assemble
// their slot list from shared per-rank builders (worklets/detail/*_body.hpp).
#include <tuple>
#include <type_traits>
#include <utility>

#include "costdsl/detail/pack.hpp"
#include "costdsl/sum.hpp"

namespace costdsl::worklets::detail {

template <class T>
struct IsTuple : std::false_type {};
template <class... T>
struct IsTuple<std::tuple<T...>> : std::true_type {};

// One flat Sum over slot tuples and single slots (an Absent one vanishes).
template <class... Parts>
constexpr auto sum_of(Parts&&... parts) {
  auto as_tuple = []<class P>(P&& p) {
    if constexpr (IsTuple<std::remove_cvref_t<P>>::value) {
      return std::forward<P>(p);
    } else {
      return costdsl::detail::keep_present(std::forward<P>(p));
    }
  };
  return std::apply([](auto&&... s) { return sum(std::move(s)...); }, std::tuple_cat(as_tuple(std::forward<Parts>(parts))...));
}

}  // namespace costdsl::worklets::detail
