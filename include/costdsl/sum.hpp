#pragma once
// Sum: serial work on one stream. time, flops, bytes and energy add; coverage ORs.
#include <utility>

#include "costdsl/concepts.hpp"
#include "costdsl/detail/node_rules.hpp"
#include "costdsl/detail/tuple.hpp"
#include "costdsl/metrics.hpp"

namespace costdsl {

template <CostNode... C>
struct Sum {
  static constexpr NodeKind node_kind = NodeKind::sum;
  detail::Tuple<C...> children;
};

namespace algebra {
// A Sum's fold: serial work on one stream.
struct SumFold {
  Metrics acc = empty();
  COSTDSL_ALWAYS_INLINE constexpr void add(const Metrics& c) noexcept { accumulate_sum(acc, c); }
  COSTDSL_ALWAYS_INLINE constexpr Metrics result() const noexcept { return acc; }
};
}  // namespace algebra

template <class... C>
struct node_traits<Sum<C...>> : detail::tuple_children<C...> {
  template <RankFold>
  COSTDSL_ALWAYS_INLINE static constexpr algebra::SumFold fold(const Sum<C...>&) noexcept {
    return {};
  }
  static constexpr LoweredNode lowered(const Sum<C...>&) noexcept { return {NodeKind::sum, 0, {}}; }
};

// sum(a, b, when(cond, c)): Absent children vanish from the type; a detail::Tuple of
// nodes (a worklet's shared slot builder) contributes its nodes in place.
template <class... C>
constexpr auto sum(C&&... c) {
  return detail::node_from<Sum>(detail::splice(std::forward<C>(c)...));
}

}  // namespace costdsl
