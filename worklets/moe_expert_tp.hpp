#pragma once
// L3 moe_expert_tp: the routed experts TP-sharded, as vLLM and SGLang run Mixtral by
// default: every rank holds 1/tp of every expert's gated MLP (moe_intermediate / tp), runs
// all of its group's routed rows through its shards, and an all-reduce over the tp ranks
// sums the partial outputs. No all-to-all: the rows never leave the rank.
//   experts (fused_moe: all experts, moe_intermediate/tp) → tp_allreduce (tp > 1)
// At tp = 1 its experts slot is moe_expert_ep's at ep = 1, launch for launch.
#include <cstdint>
#include <memory>
#include <string>
#include <utility>

#include "costdsl/dim_expr.hpp"
#include "costdsl/dtype.hpp"
#include "costdsl/fixed_string.hpp"
#include "costdsl/form.hpp"
#include "costdsl/inputs.hpp"
#include "costdsl/kernel.hpp"
#include "costdsl/kernels/all_reduce.hpp"
#include "costdsl/kernels/fused_moe.hpp"
#include "costdsl/labeled.hpp"
#include "costdsl/leaf.hpp"
#include "costdsl/ops/moe/require_routable.hpp"
#include "costdsl/ops/moe/routing.hpp"
#include "costdsl/ops/rank_folded.hpp"
#include "costdsl/resolved.hpp"
#include "costdsl/static_value.hpp"
#include "costdsl/sum.hpp"
#include "costdsl/timing.hpp"
#include "costdsl/when.hpp"
#include "costdsl/worklets/detail/weight_dtype.hpp"
#include "costdsl/worklets/detail/label.hpp"

namespace costdsl::worklets {

template <class Form, FixedString Name = "moe">
class MoeExpertTp {
 public:
  // Config: the form's hidden, moe_intermediate, num_experts, top_k, tp, dtype.
  using Storage = ops::moe::EpLoad;  // what inputs(in, storage) routes into (one rank's load)
  // moe_expert_ep's fields, so that an arch feeds either grain the same way.
  struct Input {
    std::uint64_t tokens = 0;             // the group's tokens: every rank runs all of them
    std::uint64_t max_source_tokens = 0;  // unused: the rows never leave their rank
    ops::moe::Routing routing{};
  };

  static constexpr auto resolve_config(const Form& form) {
    const auto hidden = dim<"hidden">(form);
    const auto num_experts = dim<"num_experts">(form);
    const auto top_k = dim<"top_k">(form);
    const auto tp = dim<"tp">(form);
    require_nonzero(tp);
    ops::moe::require_routable(num_experts, top_k);
    const auto moe_intermediate_per_rank = dim<"moe_intermediate">(form) / tp;
    const auto has_allreduce = greater_than_one(tp);
    // the full hidden-wide partial sum
    const double allreduce_bytes_per_token = double(hidden.value()) * bytes_per_element(values(form).dtype);
    COSTDSL_RESOLVED(hidden, num_experts, top_k, tp, moe_intermediate_per_rank, has_allreduce,
                     allreduce_bytes_per_token);
  }
  using Resolved = decltype(resolve_config(std::declval<const Form&>()));

  explicit MoeExpertTp(const Form& form) : form_(form), r_(resolve_config(form)) {}

  const Resolved& resolved() const noexcept { return r_; }

  auto build(const Timing& t) const {
    using namespace kernels;
    const Dtype dtype = values(form_).dtype;
    const std::string label = detail::worklet_label(Name.view(), "MoeExpertTp",
                                                    {{"tp", r_.tp},
                                                     {"intermediate/rank", r_.moe_intermediate_per_rank},
                                                     {"experts", r_.num_experts},
                                                     {"top_k", r_.top_k}});
    return labeled<Name>(
        label, sum(leaf<"experts">(ops::RankFolded<FusedMoe, ops::moe::EpLoadRef>{Kernel<FusedMoe>(
                       t, {expert_input_dtype(form_, dtype), to_dim(r_.hidden),
                           to_dim(r_.moe_intermediate_per_rank), to_dim(r_.num_experts), to_dim(r_.top_k),
                           expert_weight_dtype(form_), t.expert_load()})}),
                   when(r_.has_allreduce, leaf<"tp_allreduce">(Kernel<AllReduce>(t, {to_dim(r_.tp)})))));
  }

  // The routing (one rank: every expert is local) computed once; inputs(in) owns it,
  // inputs(in, storage) routes into the caller's buffer.
  auto inputs(const Input& in) const {
    auto owned = std::make_unique<ops::moe::EpLoad>();
    route(in, *owned);
    return inputs_for(in.tokens, ops::moe::EpLoadRef(std::move(owned)));
  }
  auto inputs(const Input& in, ops::moe::EpLoad& storage) const {
    route(in, storage);
    return inputs_for(in.tokens, ops::moe::EpLoadRef(storage));
  }

 private:
  void route(const Input& in, ops::moe::EpLoad& load) const {
    ops::moe::route_into(in.tokens, static_cast<std::uint32_t>(r_.num_experts.value()),
                         static_cast<std::uint32_t>(r_.top_k.value()), 1, in.routing, load);
  }
  auto inputs_for(std::uint64_t tokens, ops::moe::EpLoadRef load) const {
    return nest<Name>(costdsl::inputs(
        input<"experts">(std::move(load)),
        when(r_.has_allreduce, input<"tp_allreduce">(kernels::AllReduce::Input{
                                   static_cast<std::uint64_t>(double(tokens) * r_.allreduce_bytes_per_token)}))));
  }

  Form form_;
  Resolved r_;
};

}  // namespace costdsl::worklets
