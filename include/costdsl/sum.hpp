#pragma once
// Sum: serial work on one stream. time, flops, bytes and energy add; coverage ORs.
#include <utility>

#include "costdsl/concepts.hpp"
#include "costdsl/detail/tuple.hpp"

namespace costdsl {

template <CostNode... C>
struct Sum {
  static constexpr NodeKind node_kind = NodeKind::sum;
  detail::Tuple<C...> children;
};

// sum(a, b, when(cond, c)): Absent children vanish from the type; a detail::Tuple of
// nodes (a worklet's shared slot builder) contributes its nodes in place.
template <class... C>
constexpr auto sum(C&&... c) {
  return detail::node_from<Sum>(detail::splice(std::forward<C>(c)...));
}

}  // namespace costdsl
