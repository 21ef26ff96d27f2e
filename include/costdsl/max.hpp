#pragma once
// Max: the same section on interchangeable ranks (DP / EP / HP fan-out). Time is
// the slowest rank (a gap is load imbalance); work sums, since every rank did it.
#include <utility>

#include "costdsl/concepts.hpp"
#include "costdsl/detail/tuple.hpp"

namespace costdsl {

template <CostNode... C>
struct Max {
  static constexpr NodeKind node_kind = NodeKind::max;
  detail::Tuple<C...> children;
};

template <class... C>
constexpr auto max_over(C&&... c) {
  return detail::node_from<Max>(detail::splice(std::forward<C>(c)...));
}

}  // namespace costdsl
