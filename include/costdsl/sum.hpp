#pragma once
// Sum: serial work on one stream. time, flops, bytes and energy add; coverage ORs.
#include <tuple>
#include <utility>

#include "costdsl/concepts.hpp"
#include "costdsl/detail/pack.hpp"

namespace costdsl {

template <CostNode... C>
struct Sum {
  static constexpr NodeKind node_kind = NodeKind::sum;
  std::tuple<C...> children;
};

// sum(a, b, when(cond, c)): Absent children vanish from the type.
template <class... C>
constexpr auto sum(C&&... c) {
  return std::apply([](auto&&... kept) { return Sum<std::remove_cvref_t<decltype(kept)>...>{{std::move(kept)...}}; },
                    detail::without_absent(std::forward<C>(c)...));
}

}  // namespace costdsl
