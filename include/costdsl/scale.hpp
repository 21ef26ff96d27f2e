#pragma once
// Scale<n>: n provably identical copies of a subtree (homogeneous decoder layers).
// Everything but coverage is multiplied by n; the subtree's slots count once.
#include <string>
#include <utility>

#include "costdsl/concepts.hpp"
#include "costdsl/detail/diagnostics.hpp"
#include "costdsl/detail/node_rules.hpp"
#include "costdsl/metrics.hpp"
#include "costdsl/dim_expr.hpp"
#include "costdsl/error.hpp"
#include "costdsl/static_value.hpp"

namespace costdsl {

namespace diagnostic {
template <std::uint64_t N>
struct scale_count_must_be_positive {
  static_assert(always_false<N>, "costdsl: Scale needs n >= 1 copies; see scale_count_must_be_positive<n> above");
};
}  // namespace diagnostic

template <Number Count, CostNode C>
struct Scale {
  static constexpr NodeKind node_kind = NodeKind::scale;
  [[no_unique_address]] Count count;
  C child;
  constexpr double factor() const noexcept { return static_cast<double>(value_of(count)); }
};

namespace algebra {
// A Scale's fold: its one child times n (coverage unchanged).
struct ScaleFold {
  double n = 1;
  Metrics acc = empty();
  COSTDSL_ALWAYS_INLINE constexpr void add(const Metrics& c) noexcept { acc = c; }
  COSTDSL_ALWAYS_INLINE constexpr Metrics result() const noexcept { return scale(acc, n); }
};
}  // namespace algebra

template <class Count, class C>
struct node_traits<Scale<Count, C>> : detail::one_child<C> {
  template <RankFold>
  COSTDSL_ALWAYS_INLINE static constexpr algebra::ScaleFold fold(const Scale<Count, C>& node) noexcept {
    return {node.factor()};
  }
  static constexpr LoweredNode lowered(const Scale<Count, C>& node) noexcept {
    return {NodeKind::scale, node.factor(), {}};
  }
};

// scale(Static<32>{}, layer) or scale(num_layers_from_config, layer).
template <Number Count, CostNode C>
constexpr auto scale(Count n, C child) {
  if constexpr (is_static_v<Count>) {
    if constexpr (Count::value == 0) diagnostic::fail<diagnostic::scale_count_must_be_positive<Count::value>, int>();  // dependent: instantiated only here
  } else {
    if (n == 0) throw ConfigError("Scale count 0: a scaled subtree needs at least 1 copy");
  }
  return Scale<Count, C>{n, std::move(child)};
}

// A dim expression as Scale's count: Static<n> from a static one (the tree type carries
// it), its value from a run-time one. What an arch stores when it resolves a count.
template <DimExpr E>
constexpr auto scale_count(const E& e) {
  if constexpr (E::is_static) {
    return Static<E{}.value()>{};
  } else {
    return e.value();
  }
}

// scale(dim<"num_layers">(form), layer): the one way an arch writes a layer count.
template <DimExpr E, CostNode C>
constexpr auto scale(const E& n, C child) {
  return scale(scale_count(n), std::move(child));
}

}  // namespace costdsl
