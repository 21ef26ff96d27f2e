#pragma once
// L3 moe_expert_ep: the routed experts of one EP group, from dispatch to combine.
//   dispatch (all_to_all, ep > 1) → experts (fused_moe: gate/up GEMM, SiLU·mul, down GEMM
//   over the rank's experts, as SGLang and vLLM launch it) → combine (all_to_all, ep > 1)
//   → moe_sum (ep > 1: each token's top_k outputs, back from the other ranks, summed)
//   → combine_allreduce (ep > 1 over replicated tokens, in place of the all-to-all path)
// With ep = 1 the fused module sums a token's expert outputs itself (no combine, no
// moe_sum slot). Where every EP rank already holds every token (one attention group over
// all of them: attention DP 1, after its TP all-reduce) the frameworks skip the dispatch:
// each rank gates all tokens, runs its own experts on the rows routed to them, sums a
// token's local outputs, and one all-reduce over the ep ranks combines the partial sums
// (combine_allreduce; vLLM takes its all-to-all kernels only at DP > 1, SGLang and
// TensorRT-LLM without attention DP all-reduce alike). The owner says so at construction.
// Over replicated tokens the experts may also be split both ways (a form's moe_tp > 1, as
// SGLang's moe_tp_size = tp / ep_size and TensorRT-LLM's moe_tp_size x moe_ep_size = tp
// run them): ep / moe_tp groups hold the experts, each expert's intermediate width split
// moe_tp ways inside a group, and the same all-reduce over all ep GPUs sums the partial
// outputs. The experts slot is ONE slot for any ep (ops::RankFolded): its callable
// runs the launch for every rank's routed rows and folds the ranks with the Max algebra
// (time = slowest rank, work sums). Ranks are interchangeable, so they never get slots of
// their own (INV-1). Measured, the slot is the fused module's table; analytic, its grouped-GEMM
// decomposition (kernels/fused_moe.hpp).
#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "costdsl/concepts.hpp"
#include "costdsl/dim.hpp"
#include "costdsl/dim_expr.hpp"
#include "costdsl/dtype.hpp"
#include "costdsl/error.hpp"
#include "costdsl/worklets/detail/weight_dtype.hpp"
#include "costdsl/fixed_string.hpp"
#include "costdsl/form.hpp"
#include "costdsl/inputs.hpp"
#include "costdsl/kernel.hpp"
#include "costdsl/kernels/all_reduce.hpp"
#include "costdsl/kernels/all_to_all.hpp"
#include "costdsl/kernels/fused_moe.hpp"
#include "costdsl/kernels/grouped_gemm.hpp"
#include "costdsl/kernels/moe_sum.hpp"
#include "costdsl/kernels/silu_and_mul.hpp"
#include "costdsl/labeled.hpp"
#include "costdsl/leaf.hpp"
#include "costdsl/metrics.hpp"
#include "costdsl/ops/moe/dispatch_combine.hpp"
#include "costdsl/ops/moe/require_routable.hpp"
#include "costdsl/ops/moe/routing.hpp"
#include "costdsl/ops/rank_folded.hpp"
#include "costdsl/resolved.hpp"
#include "costdsl/static_value.hpp"
#include "costdsl/sum.hpp"
#include "costdsl/timing.hpp"
#include "costdsl/when.hpp"
#include "costdsl/worklets/detail/label.hpp"

namespace costdsl::worklets {

template <class Form, FixedString Name = "moe">
class MoeExpertEp {
 public:
  // Config: the form's hidden, moe_intermediate, num_experts, top_k, ep, dtype (and
  // expert_dtype, the expert weights' dtype, where the form has one).
  using Storage = ops::moe::EpLoad;  // what inputs(in, storage) routes into
  struct Input {
    std::uint64_t tokens = 0;             // tokens entering the layer across all EP ranks
    std::uint64_t max_source_tokens = 0;  // the most tokens one rank dispatches
    ops::moe::Routing routing{};
  };

  static constexpr auto resolve_config(const Form& form) {
    using namespace literals;
    const auto hidden = dim<"hidden">(form);
    const auto moe_intermediate = dim<"moe_intermediate">(form);
    const auto num_experts = dim<"num_experts">(form);
    const auto top_k = dim<"top_k">(form);
    const auto ep = dim<"ep">(form);
    require_nonzero(ep);
    ops::moe::require_routable(num_experts, top_k);
    require_le<"ep may not exceed the routing capacity">(ep, sym<"max_ep">(Static<ops::moe::max_ep>{}));
    const auto experts_per_rank = num_experts / ep;
    const auto has_a2a = greater_than_one(ep);
    // one hidden row on the wire
    const auto row_bytes = static_cast<std::uint64_t>(double(hidden.value()) * bytes_per_element(values(form).dtype));
    COSTDSL_RESOLVED(hidden, moe_intermediate, num_experts, top_k, ep, experts_per_rank, has_a2a, row_bytes);
  }
  using Resolved = decltype(resolve_config(std::declval<const Form&>()));

  // replicated_tokens: every EP rank holds every token (see the file comment).
  explicit MoeExpertEp(const Form& form, bool replicated_tokens = false)
      : form_(form), r_(resolve_config(form)), replicated_(replicated_tokens), moe_tp_(moe_tp_of(form)) {
    if (moe_tp_ == 1) return;
    const std::uint64_t ep = r_.ep.value(), experts = r_.num_experts.value(), width = r_.moe_intermediate.value();
    const auto no = [&](const std::string& rule) {
      throw ConfigError("moe_tp " + std::to_string(moe_tp_) + " with ep " + std::to_string(ep) + ": " + rule);
    };
    if (moe_tp_ == 0) no("moe_tp must be at least 1");
    if (ep % moe_tp_ != 0) no("moe_tp must divide ep (the GPUs the experts span)");
    if (experts % (ep / moe_tp_) != 0)
      no("ep / moe_tp = " + std::to_string(ep / moe_tp_) + " expert groups must divide num_experts " +
         std::to_string(experts));
    if (width % moe_tp_ != 0)
      no("moe_tp must divide moe_intermediate " + std::to_string(width) + " (each expert's width is split)");
    if (!replicated_)
      no("experts split both ways are modelled over one attention group (attention DP 1), where every GPU holds "
         "every token");
  }

  const Resolved& resolved() const noexcept { return r_; }

  auto build(const Timing& t) const {
    using namespace kernels;
    const Dtype dtype = values(form_).dtype;
    const Dtype expert_dtype = expert_weight_dtype(form_);
    const std::string label =
        moe_tp_ == 1 ? detail::worklet_label(Name.view(), "MoeExpertEp",
                                             {{"ep", r_.ep}, {"experts/rank", r_.experts_per_rank}, {"top_k", r_.top_k}})
                     : detail::worklet_label(Name.view(), "MoeExpertEp",
                                             {{"ep", r_.ep}, {"moe_tp", moe_tp_},
                                              {"experts/rank", r_.num_experts.value() * moe_tp_ / r_.ep.value()},
                                              {"top_k", r_.top_k}});
    // Split both ways (moe_tp > 1): a rank holds moe_tp times the experts, each moe_tp-th as wide.
    const Dim e = moe_tp_ == 1 ? to_dim(r_.experts_per_rank) : Dim(r_.num_experts.value() * moe_tp_ / r_.ep.value()),
              h = to_dim(r_.hidden), k = to_dim(r_.top_k),
              i = moe_tp_ == 1 ? to_dim(r_.moe_intermediate) : Dim(r_.moe_intermediate.value() / moe_tp_);
    return labeled<Name>(
        label, sum(when(a2a_path(), leaf<"dispatch">(Kernel<AllToAll>(t, {to_dim(r_.ep)}))),
                   leaf<"experts">(ops::RankFolded<FusedMoe, ops::moe::EpLoadRef>{
                       Kernel<FusedMoe>(t, {expert_input_dtype(form_, dtype), h, i, e, k, expert_dtype, t.expert_load()})}),
                   when(a2a_path(), leaf<"combine">(Kernel<AllToAll>(t, {to_dim(r_.ep)}))),
                   when(a2a_path(), leaf<"moe_sum">(Kernel<MoeSum>(t, {dtype, h, k}))),
                   when(allreduce_path(), leaf<"combine_allreduce">(Kernel<AllReduce>(t, {to_dim(r_.ep)})))));
  }

  // The routing is computed once here; the experts slot reads it. inputs(in)
  // owns the load; inputs(in, storage) routes into the caller's buffer and borrows it
  // (an arch's InputScratch: nothing allocated per iteration).
  auto inputs(const Input& in) const {
    auto owned = std::make_unique<ops::moe::EpLoad>();
    const ops::moe::A2aSizes a2a = route(in, *owned);
    return inputs_for(a2a, ops::moe::EpLoadRef(std::move(owned)), in);
  }
  auto inputs(const Input& in, ops::moe::EpLoad& storage) const {
    const ops::moe::A2aSizes a2a = route(in, storage);
    return inputs_for(a2a, ops::moe::EpLoadRef(storage), in);
  }

 private:
  ops::moe::A2aSizes route(const Input& in, ops::moe::EpLoad& load) const {
    const auto top_k = static_cast<std::uint32_t>(r_.top_k.value());
    // The ranks the routing deals over: the ep / moe_tp groups that hold distinct experts.
    ops::moe::route_into(in.tokens, static_cast<std::uint32_t>(r_.num_experts.value()), top_k,
                         static_cast<std::uint32_t>(r_.ep.value() / moe_tp_), in.routing, load);
    return ops::moe::a2a_sizes(in.max_source_tokens, top_k, load, r_.row_bytes);
  }
  // `first` (owning or borrowing `load`) goes to the experts slot. The most tokens one rank
  // dispatches is also the most it sums after the combine.
  auto inputs_for(const ops::moe::A2aSizes& a2a, ops::moe::EpLoadRef first, const Input& in) const {
    return nest<Name>(costdsl::inputs(
        when(a2a_path(), input<"dispatch">(a2a.dispatch)), input<"experts">(std::move(first)),
        when(a2a_path(), input<"combine">(a2a.combine)),
        when(a2a_path(), input<"moe_sum">(kernels::MoeSum::Input{in.max_source_tokens})),
        when(allreduce_path(), input<"combine_allreduce">(kernels::AllReduce::Input{in.tokens * r_.row_bytes}))));
  }

  // Which combine the ranks run (ep > 1): the all-to-all pair with its moe_sum, or, over
  // replicated tokens, one all-reduce. ep 1 of a static form: neither slot exists.
  auto a2a_path() const {
    if constexpr (std::is_same_v<std::remove_cvref_t<decltype(r_.has_a2a)>, bool>) {
      return r_.has_a2a && !replicated_;
    } else if constexpr (static_cast<bool>(std::remove_cvref_t<decltype(r_.has_a2a)>::value)) {
      return !replicated_;
    } else {
      return std::false_type{};
    }
  }
  auto allreduce_path() const {
    if constexpr (std::is_same_v<std::remove_cvref_t<decltype(r_.has_a2a)>, bool>) {
      return r_.has_a2a && replicated_;
    } else if constexpr (static_cast<bool>(std::remove_cvref_t<decltype(r_.has_a2a)>::value)) {
      return replicated_;
    } else {
      return std::false_type{};
    }
  }

  static std::uint64_t moe_tp_of(const Form& form) {
    if constexpr (requires { values(form).moe_tp; }) {
      return values(form).moe_tp;
    } else {
      return 1;
    }
  }

  Form form_;
  Resolved r_;
  bool replicated_ = false;
  std::uint64_t moe_tp_ = 1;  // experts split both ways: see the file comment
};

}  // namespace costdsl::worklets
