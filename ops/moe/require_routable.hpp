#pragma once
// require_routable: the routing's own limits (top_k at least 1 and at most num_experts, the
// experts within what ops::moe::Routing can hold), checked by every expert worklet after its
// degree: a static form's mistake is a compile error, a run-time one a ConfigError.
#include "costdsl/dim_expr.hpp"
#include "costdsl/ops/moe/routing.hpp"
#include "costdsl/static_value.hpp"

namespace costdsl::ops::moe {

template <DimExpr E, DimExpr K>
constexpr void require_routable(const E& num_experts, const K& top_k) {
  require_nonzero(top_k);
  require_le<"top_k may not exceed num_experts">(top_k, num_experts);
  require_le<"num_experts may not exceed the routing capacity">(num_experts,
                                                                sym<"max_experts">(Static<ops::moe::max_experts>{}));
}

}  // namespace costdsl::ops::moe
