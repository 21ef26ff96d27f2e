#pragma once
// Max: the same section on interchangeable ranks (DP / EP / HP fan-out). Time is
// the slowest rank (a gap is load imbalance); work sums, since every rank did it.
#include <tuple>
#include <utility>

#include "costdsl/concepts.hpp"
#include "costdsl/detail/pack.hpp"

namespace costdsl {

template <CostNode... C>
struct Max {
  static constexpr NodeKind node_kind = NodeKind::max;
  std::tuple<C...> children;
};

template <class... C>
constexpr auto max_over(C&&... c) {
  return std::apply([](auto&&... kept) { return Max<std::remove_cvref_t<decltype(kept)>...>{{std::move(kept)...}}; },
                    detail::without_absent(std::forward<C>(c)...));
}

}  // namespace costdsl
