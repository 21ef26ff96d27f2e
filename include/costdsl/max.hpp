#pragma once
// Max: the same section on interchangeable ranks (DP / EP / HP fan-out). Time is
// the slowest rank (a gap is load imbalance); work sums, since every rank did it.
#include <utility>

#include "costdsl/concepts.hpp"
#include "costdsl/detail/node_rules.hpp"
#include "costdsl/detail/tuple.hpp"
#include "costdsl/metrics.hpp"

namespace costdsl {

template <CostNode... C>
struct Max {
  static constexpr NodeKind node_kind = NodeKind::max;
  detail::Tuple<C...> children;
};

namespace algebra {
// A Max's fold (and a Fanout's): the slowest child, or under RankFold::mean the
// mean of the children's times; work sums either way.
template <RankFold F>
struct MaxFold {
  Metrics acc = empty();
  double sum_time = 0;
  double count = 0;
  COSTDSL_ALWAYS_INLINE constexpr void add(const Metrics& c) noexcept {
    accumulate_max(acc, c);
    if constexpr (F == RankFold::mean) {
      sum_time += c.time_s;
      count += 1;
    }
  }
  COSTDSL_ALWAYS_INLINE constexpr Metrics result() const noexcept {
    Metrics out = acc;
    if constexpr (F == RankFold::mean)
      if (count > 0) out.time_s = sum_time / count;
    return out;
  }
};
}  // namespace algebra

template <class... C>
struct node_traits<Max<C...>> : detail::tuple_children<C...> {
  template <RankFold F>
  COSTDSL_ALWAYS_INLINE static constexpr algebra::MaxFold<F> fold(const Max<C...>&) noexcept {
    return {};
  }
  static constexpr LoweredNode lowered(const Max<C...>&) noexcept { return {NodeKind::max, 0, {}}; }
};

template <class... C>
constexpr auto max_over(C&&... c) {
  return detail::node_from<Max>(detail::splice(std::forward<C>(c)...));
}

}  // namespace costdsl
