#pragma once
// L3 attn_block_tp: one TP group's attention block, ending at the TP all-reduce.
//   input_norm → qkv_proj → [q_norm, k_norm] → rope → [qk_norm_allreduce (per-layer q/k norm, tp > 1)]
//   → attention (kv_cache_append, prefill, decode) → [output_gate] → o_proj → tp_allreduce (tp > 1)
// OutputGate: the q projection also yields a per-channel gate (twice q's width), applied as
// sigmoid(gate) · attention output before o_proj (Qwen3-Next, Qwen3.5).
// Partition math and its checks live in resolve_config only; hidden is never sharded;
// tp == 1 is exactly pre_attn_local + attn_local (the same slot builders) with no
// collective slot.
#include <cstdint>
#include <string>
#include <type_traits>

#include "costdsl/dim_expr.hpp"
#include "costdsl/dtype.hpp"
#include "costdsl/fixed_string.hpp"
#include "costdsl/form.hpp"
#include "costdsl/inputs.hpp"
#include "costdsl/kernel.hpp"
#include "costdsl/kernels/all_reduce.hpp"
#include "costdsl/labeled.hpp"
#include "costdsl/leaf.hpp"
#include "costdsl/ops/attention/attention.hpp"
#include "costdsl/resolved.hpp"
#include "costdsl/sum.hpp"
#include "costdsl/timing.hpp"
#include "costdsl/when.hpp"
#include "costdsl/ops/attention/body.hpp"
#include "costdsl/worklets/detail/weight_dtype.hpp"
#include "costdsl/worklets/detail/label.hpp"

namespace costdsl::worklets {

template <class Form, FixedString Name = "attn", ops::QkNorm Norm = ops::QkNorm::none, bool OutputGate = false>
class AttnBlockTp {
 public:
  // Config: the form's hidden, num_qo_heads, num_kv_heads, head_dim, tp, dtype, kv_dtype (and
  // gemm_dtype, the projections' weights, where the form has one).
  struct Input {
    std::uint64_t batch_tokens = 0;  // Σ append + decodes: rows through the projections
    ops::AttentionWork attention;
  };

  static constexpr auto resolve_config(const Form& form) {
    using namespace literals;
    const auto hidden = dim<"hidden">(form);
    const auto num_qo_heads = dim<"num_qo_heads">(form);
    const auto num_kv_heads = dim<"num_kv_heads">(form);
    const auto head_dim = dim<"head_dim">(form);
    const auto tp = dim<"tp">(form);
    require_nonzero(tp);
    require_le<"tp may not exceed num_kv_heads (KV heads are not replicated)">(tp, num_kv_heads);
    const auto num_qo_heads_per_rank = num_qo_heads / tp;
    const auto num_kv_heads_per_rank = num_kv_heads / tp;
    const auto qkv_n = [&] {
      if constexpr (OutputGate) {
        return (2_c * num_qo_heads_per_rank + 2_c * num_kv_heads_per_rank) * head_dim;
      } else {
        return (num_qo_heads_per_rank + 2_c * num_kv_heads_per_rank) * head_dim;
      }
    }();
    const auto o_proj_k = num_qo_heads_per_rank * head_dim;
    const auto has_allreduce = greater_than_one(tp);
    // the full hidden-wide partial sum, not hidden/tp
    const double allreduce_bytes_per_token = double(hidden.value()) * bytes_per_element(values(form).dtype);
    COSTDSL_RESOLVED(hidden, head_dim, tp, num_qo_heads_per_rank, num_kv_heads_per_rank, qkv_n, o_proj_k,
                     has_allreduce, allreduce_bytes_per_token);
  }
  using Resolved = decltype(resolve_config(std::declval<const Form&>()));

  // window > 0: a sliding-window layer (its prefill attends to at most `window` keys per
  // query; its inputs' decode KV must come capped, from ops::collapse_window(batch, window)).
  explicit AttnBlockTp(const Form& form, std::uint32_t window = 0)
      : form_(form), r_(resolve_config(form)), window_(window) {}

  const Resolved& resolved() const noexcept { return r_; }

  auto build(const Timing& t) const {
    using namespace kernels;
    const auto& v = values(form_);
    const std::string label = detail::worklet_label(
        Name.view(), "AttnBlockTp",
        {{"tp", r_.tp}, {"qo/rank", r_.num_qo_heads_per_rank}, {"kv/rank", r_.num_kv_heads_per_rank}});
    return labeled<Name>(
        label, sum(ops::pre_attention_slots<Norm>(t, v.dtype, projection_dtypes(form_), r_),
                   when(per_layer_norm_allreduce(), leaf<"qk_norm_allreduce">(Kernel<AllReduce>(t, {to_dim(r_.tp)}))),
                   ops::attention_slots<OutputGate>(t, v.dtype, projection_dtypes(form_), v.kv_dtype, r_, window_),
                   when(r_.has_allreduce, leaf<"tp_allreduce">(Kernel<AllReduce>(t, {to_dim(r_.tp)})))));
  }

  // Slot inputs in build() order; m = batch_tokens for every projection.
  auto inputs(const Input& in) const {
    const std::uint64_t m = in.batch_tokens;
    return nest<Name>(costdsl::inputs(
        ops::pre_attention_slot_inputs<Norm>(m, r_),
        when(per_layer_norm_allreduce(), input<"qk_norm_allreduce">(kernels::AllReduce::Input{m * 2 * 4})),
        ops::attention_slot_inputs<OutputGate>(m, in.attention),
        when(r_.has_allreduce,
             input<"tp_allreduce">(kernels::AllReduce::Input{
                 static_cast<std::uint64_t>(double(m) * r_.allreduce_bytes_per_token)}))));
  }

 private:
  // The per-layer q/k norm's all-reduce of each token's two fp32 sums of squares: a slot
  // only for ops::QkNorm::per_layer, taken where tp > 1 (a static false otherwise: no slot).
  auto per_layer_norm_allreduce() const {
    if constexpr (Norm == ops::QkNorm::per_layer) {
      return r_.has_allreduce;
    } else {
      return std::false_type{};
    }
  }

  Form form_;
  Resolved r_;
  std::uint32_t window_ = 0;
};

}  // namespace costdsl::worklets
