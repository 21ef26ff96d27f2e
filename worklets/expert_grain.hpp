#pragma once
// How an MoE layer's routed experts are sharded over the GPUs that run it:
//   ExpertGrain::ep  expert-parallel: whole experts per rank, rows dispatched by all-to-all
//                    (moe_expert_ep);
//   ExpertGrain::tp  tensor-parallel: every expert split by its intermediate width over the
//                    attention group's tp ranks, an all-reduce after (moe_expert_tp).
// A static form with ep 1 over tp > 1 GPUs can only mean the tp grain, and picks it; a
// run-time form is ep unless built with ExpertGrain::tp.
#include "costdsl/form.hpp"

namespace costdsl::worklets {

enum class ExpertGrain : bool { ep, tp };

template <class Form>
inline constexpr ExpertGrain default_expert_grain = [] {
  if constexpr (is_fixed_v<Form>) {
    return Form::value.ep == 1 && Form::value.tp > 1 ? ExpertGrain::tp : ExpertGrain::ep;
  } else {
    return ExpertGrain::ep;
  }
}();

}  // namespace costdsl::worklets
