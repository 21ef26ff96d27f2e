#pragma once
// L3 mla_block_tp: one TP group's DeepSeek-V3 MLA attention block, ending at the TP all-reduce.
//   input_norm → q_a_proj (n = q_lora_rank) → q_a_norm → q_b_proj (n = heads/tp·(nope+rope))
//   → kv_a_proj (n = kv_lora_rank + rope) → kv_a_norm → rope (q_pe, k_pe) → MLA op (kv_cache_append, kv_b_proj,
//   prefill, q_absorb, decode, o_absorb) → o_proj (k = heads/tp·v_head_dim) → tp_allreduce (tp > 1)
// TP splits the heads only: q_a_proj and kv_a_proj (and their norms) are replicated on
// every rank (the latent is shared by all heads), hidden is never sharded. Prefill's
// up-projection of the latent (kv_b_proj) is a GEMM slot of the MLA op, not folded
// into mla_prefill: its rows are the chunks' prefix + append keys, which only the op sees.
// A form with the lightning indexer's index_n_heads, index_head_dim and index_topk (the
// dense-then-MoE frame's DsaForm, for GLM-5) runs DeepSeek sparse attention (ops::Dsa) in
// the MLA op's place: the indexer whole on every rank, MLA's queries over the top-k rows.
#include <cstdint>
#include <string>

#include "costdsl/dim.hpp"
#include "costdsl/dim_expr.hpp"
#include "costdsl/dtype.hpp"
#include "costdsl/fixed_string.hpp"
#include "costdsl/form.hpp"
#include "costdsl/inputs.hpp"
#include "costdsl/kernel.hpp"
#include "costdsl/kernels/all_reduce.hpp"
#include "costdsl/kernels/gemm.hpp"
#include "costdsl/kernels/rms_norm.hpp"
#include "costdsl/kernels/rope.hpp"
#include "costdsl/labeled.hpp"
#include "costdsl/leaf.hpp"
#include "costdsl/ops/attention/dsa.hpp"
#include "costdsl/ops/attention/mla.hpp"
#include "costdsl/resolved.hpp"
#include "costdsl/sum.hpp"
#include "costdsl/timing.hpp"
#include "costdsl/when.hpp"
#include "costdsl/worklets/detail/label.hpp"
#include "costdsl/worklets/detail/weight_dtype.hpp"

namespace costdsl::worklets {

template <class Form, FixedString Name = "attn">
class MlaBlockTp {
  // DeepSeek sparse attention: the form names the indexer.
  static constexpr bool sparse = requires(const Form& f) { values(f).index_topk; };

 public:
  // Config: the form's hidden, num_heads, q_lora_rank, kv_lora_rank, qk_nope_head_dim,
  // qk_rope_head_dim, v_head_dim, tp, dtype, kv_dtype (and gemm_dtype where the form has one).
  struct Input {
    std::uint64_t batch_tokens = 0;  // Σ append + decodes: rows through the projections
    ops::MlaWork mla;
  };

  static constexpr auto resolve_config(const Form& form) {
    const auto hidden = dim<"hidden">(form);
    const auto num_heads = dim<"num_heads">(form);
    const auto q_lora_rank = dim<"q_lora_rank">(form);
    const auto kv_lora_rank = dim<"kv_lora_rank">(form);
    const auto qk_nope_head_dim = dim<"qk_nope_head_dim">(form);
    const auto qk_rope_head_dim = dim<"qk_rope_head_dim">(form);
    const auto v_head_dim = dim<"v_head_dim">(form);
    const auto tp = dim<"tp">(form);
    require_nonzero(tp);
    require_nonzero(q_lora_rank);
    require_nonzero(kv_lora_rank);
    require_nonzero(num_heads);
    const auto num_heads_per_rank = num_heads / tp;  // tp must divide num_heads (heads are not split)
    const auto q_b_n = num_heads_per_rank * (qk_nope_head_dim + qk_rope_head_dim);
    const auto kv_a_n = kv_lora_rank + qk_rope_head_dim;
    const auto o_proj_k = num_heads_per_rank * v_head_dim;
    const auto has_allreduce = greater_than_one(tp);
    // the full hidden-wide partial sum, not hidden/tp
    const double allreduce_bytes_per_token = double(hidden.value()) * bytes_per_element(values(form).dtype);
    if constexpr (sparse) {
      const auto index_n_heads = dim<"index_n_heads">(form);
      const auto index_head_dim = dim<"index_head_dim">(form);
      const auto index_topk = dim<"index_topk">(form);
      require_nonzero(index_n_heads);
      require_nonzero(index_head_dim);
      require_nonzero(index_topk);  // a query selects at least one token
      COSTDSL_RESOLVED(hidden, q_lora_rank, kv_lora_rank, qk_nope_head_dim, qk_rope_head_dim, v_head_dim, tp,
                       num_heads_per_rank, q_b_n, kv_a_n, o_proj_k, has_allreduce, allreduce_bytes_per_token,
                       index_n_heads, index_head_dim, index_topk);
    } else {
      COSTDSL_RESOLVED(hidden, q_lora_rank, kv_lora_rank, qk_nope_head_dim, qk_rope_head_dim, v_head_dim, tp,
                       num_heads_per_rank, q_b_n, kv_a_n, o_proj_k, has_allreduce, allreduce_bytes_per_token);
    }
  }
  using Resolved = decltype(resolve_config(std::declval<const Form&>()));

  explicit MlaBlockTp(const Form& form) : form_(form), r_(resolve_config(form)) {}

  const Resolved& resolved() const noexcept { return r_; }

  auto build(const Timing& t) const {
    check_no_fp8_producers(form_, "MlaBlockTp");
    using namespace kernels;
    const auto& v = values(form_);
    const Dim hidden = to_dim(r_.hidden);
    const std::string label = detail::worklet_label(
        Name.view(), "MlaBlockTp", {{"tp", r_.tp}, {"heads/rank", r_.num_heads_per_rank}, {"latent", r_.kv_a_n}});
    return labeled<Name>(
        label,
        sum(leaf<"input_norm">(Kernel<RmsNorm>(t, {v.dtype, hidden})),
            leaf<"q_a_proj">(Kernel<Gemm>(t, {gemm_weight_dtype(form_), to_dim(r_.q_lora_rank), hidden})),
            leaf<"q_a_norm">(Kernel<RmsNorm>(t, {v.dtype, to_dim(r_.q_lora_rank)})),
            leaf<"q_b_proj">(Kernel<Gemm>(t, {gemm_weight_dtype(form_), to_dim(r_.q_b_n), to_dim(r_.q_lora_rank)})),
            leaf<"kv_a_proj">(Kernel<Gemm>(t, {gemm_weight_dtype(form_), to_dim(r_.kv_a_n), hidden})),
            leaf<"kv_a_norm">(Kernel<RmsNorm>(t, {v.dtype, to_dim(r_.kv_lora_rank)})),
            // Rotary on the decoupled parts only: q_pe of every head and the one shared k_pe.
            leaf<"rope">(Kernel<Rope>(t, {v.dtype, to_dim(r_.num_heads_per_rank), Dim{1}, to_dim(r_.qk_rope_head_dim)})),
            attention(t, {v.dtype, v.kv_dtype, gemm_weight_dtype(form_), to_dim(r_.num_heads_per_rank), to_dim(r_.kv_lora_rank),
                          to_dim(r_.qk_nope_head_dim), to_dim(r_.qk_rope_head_dim), to_dim(r_.v_head_dim)}),
            leaf<"o_proj">(Kernel<Gemm>(t, {gemm_weight_dtype(form_), hidden, to_dim(r_.o_proj_k)})),
            when(r_.has_allreduce, leaf<"tp_allreduce">(Kernel<AllReduce>(t, {to_dim(r_.tp)})))));
  }

  // Slot inputs in build() order; m = batch_tokens for every projection.
  auto inputs(const Input& in) const {
    using namespace kernels;
    const std::uint64_t m = in.batch_tokens;
    return nest<Name>(costdsl::inputs(
        input<"input_norm">(RmsNorm::Input{m}), input<"q_a_proj">(Gemm::Input{m}),
        input<"q_a_norm">(RmsNorm::Input{m}), input<"q_b_proj">(Gemm::Input{m}), input<"kv_a_proj">(Gemm::Input{m}),
        input<"kv_a_norm">(RmsNorm::Input{m}), input<"rope">(Rope::Input{m}), attention_inputs(in.mla),
        input<"o_proj">(Gemm::Input{m}),
        when(r_.has_allreduce, input<"tp_allreduce">(AllReduce::Input{
                                   static_cast<std::uint64_t>(double(m) * r_.allreduce_bytes_per_token)}))));
  }

 private:
  // The attention op: MLA, or DSA where the form names the indexer.
  auto attention(const Timing& t, const ops::MlaConfig& mla) const {
    if constexpr (sparse) {
      return ops::Dsa::build(t, {mla, to_dim(r_.hidden), to_dim(r_.q_lora_rank), to_dim(r_.index_n_heads),
                                 to_dim(r_.index_head_dim), to_dim(r_.index_topk)});
    } else {
      return ops::Mla::build(t, mla);
    }
  }
  auto attention_inputs(const ops::MlaWork& w) const {
    if constexpr (sparse) {
      return ops::Dsa::inputs(w, r_.num_heads_per_rank.value(), r_.index_topk.value());
    } else {
      return ops::Mla::inputs(w, r_.num_heads_per_rank.value());
    }
  }

  Form form_;
  Resolved r_;
};

}  // namespace costdsl::worklets
