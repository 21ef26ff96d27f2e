#pragma once
// Parallel: different work on concurrent streams of ONE device (a shared expert
// on a side stream). time = max / overlap with overlap in (0, 1] (1 = perfect
// overlap); work sums. Unlike Max it is never rebalanced by the lower-bound view.
#include <string>
#include <utility>

#include "costdsl/concepts.hpp"
#include "costdsl/detail/diagnostics.hpp"
#include "costdsl/detail/node_rules.hpp"
#include "costdsl/detail/tuple.hpp"
#include "costdsl/metrics.hpp"
#include "costdsl/error.hpp"
#include "costdsl/static_value.hpp"

namespace costdsl {

namespace diagnostic {
template <std::uint64_t Num, std::uint64_t Den>
struct parallel_overlap_out_of_range {
  static_assert(always_false<Num, Den>,
                "costdsl: Parallel's overlap must lie in (0, 1]; see parallel_overlap_out_of_range<num, den> above");
};
}  // namespace diagnostic

// A run-time overlap, checked once when the tree is built.
struct Overlap {
  double value;
  explicit Overlap(double v) : value(v) {
    if (!(v > 0.0 && v <= 1.0))
      throw ConfigError("Parallel overlap " + std::to_string(v) + " is outside (0, 1]");
  }
};

template <class O>
concept OverlapValue = is_ratio<O>::value || std::same_as<O, Overlap>;

template <OverlapValue O, CostNode... C>
struct Parallel {
  static constexpr NodeKind node_kind = NodeKind::parallel;
  [[no_unique_address]] O overlap;
  detail::Tuple<C...> children;

  constexpr double overlap_value() const noexcept {
    if constexpr (is_ratio<O>::value) {
      return O::value;
    } else {
      return overlap.value;
    }
  }
};

namespace algebra {
// A Parallel's fold: the slowest stream over `overlap`; never rebalanced (the streams
// are different work, not interchangeable ranks).
struct ParallelFold {
  double overlap = 1;
  Metrics acc = empty();
  COSTDSL_ALWAYS_INLINE constexpr void add(const Metrics& c) noexcept { accumulate_max(acc, c); }
  COSTDSL_ALWAYS_INLINE constexpr Metrics result() const noexcept {
    Metrics out = acc;
    finish_parallel(out, overlap);
    return out;
  }
};
}  // namespace algebra

template <class O, class... C>
struct node_traits<Parallel<O, C...>> : detail::tuple_children<C...> {
  template <RankFold>
  COSTDSL_ALWAYS_INLINE static constexpr algebra::ParallelFold fold(const Parallel<O, C...>& node) noexcept {
    return {node.overlap_value()};
  }
  static constexpr LoweredNode lowered(const Parallel<O, C...>& node) noexcept {
    return {NodeKind::parallel, node.overlap_value(), {}};
  }
};

namespace detail {
template <class O>
constexpr auto checked_overlap(O o) {
  if constexpr (is_ratio<O>::value) {
    if constexpr (!(O::value > 0.0 && O::value <= 1.0)) {
      return diagnostic::fail<diagnostic::parallel_overlap_out_of_range<O::num, O::den>, Ratio<1, 1>>();
    } else {
      return o;
    }
  } else {
    return Overlap(static_cast<double>(o));
  }
}
}  // namespace detail

// parallel(Ratio<9, 10>{}, a, b) checks at compile time; parallel(0.9, a, b) when built.
template <class O, class... C>
constexpr auto parallel(O overlap, C&&... c) {
  auto checked = detail::checked_overlap(overlap);
  return [&]<class... K>(detail::Tuple<K...>&& kept) {
    return Parallel<decltype(checked), K...>{checked, std::move(kept)};
  }(detail::splice(std::forward<C>(c)...));
}

}  // namespace costdsl
