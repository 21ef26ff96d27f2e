#pragma once
// L3 gdn_block_tp: one TP group's Gated DeltaNet (linear-attention) block, ending at the TP
// all-reduce, in the Qwen3-Next / Qwen3.5 layout (vLLM's and SGLang's Qwen3NextGatedDeltaNet):
//   input_norm → in_proj_qkvz → in_proj_ba → gated delta net op (conv_prefill, conv_decode,
//   prefill, decode) → norm → norm_gate → out_proj → tp_allreduce (tp > 1)
// The k and v heads are split tp ways (each rank runs whole heads: its q, k, v, z columns,
// its b, a per v head, its conv channels and its states). The gated RMSNorm (RMSNorm of each
// v head's output times SiLU(z)) is costed as its two parts, a per-head RMSNorm and a
// silu_and_mul over the rank's v channels: FLA's fused kernel saves one write and read of
// the normed output, so this is a bound from above. Partition math lives in resolve_config.
#include <cstdint>
#include <string>

#include "costdsl/dim_expr.hpp"
#include "costdsl/dtype.hpp"
#include "costdsl/fixed_string.hpp"
#include "costdsl/form.hpp"
#include "costdsl/inputs.hpp"
#include "costdsl/kernel.hpp"
#include "costdsl/kernels/all_reduce.hpp"
#include "costdsl/kernels/gemm.hpp"
#include "costdsl/kernels/rms_norm.hpp"
#include "costdsl/kernels/silu_and_mul.hpp"
#include "costdsl/labeled.hpp"
#include "costdsl/leaf.hpp"
#include "costdsl/ops/attention/batch.hpp"
#include "costdsl/ops/attention/gdn.hpp"
#include "costdsl/resolved.hpp"
#include "costdsl/sum.hpp"
#include "costdsl/timing.hpp"
#include "costdsl/when.hpp"
#include "costdsl/worklets/detail/label.hpp"
#include "costdsl/worklets/detail/weight_dtype.hpp"

namespace costdsl::worklets {

template <class Form, FixedString Name = "attn">
class GdnBlockTp {
 public:
  // Config: the form's hidden, linear_num_key_heads, linear_key_head_dim,
  // linear_num_value_heads, linear_value_head_dim, linear_conv_kernel_dim, tp, dtype (and
  // gemm_dtype, the projections' weights, where the form has one).
  struct Input {
    std::uint64_t batch_tokens = 0;  // Σ append + decodes: rows through the projections
    ops::AttentionWork attention;    // the chunks' append lengths and the decode count (no KV lengths)
  };

  static constexpr auto resolve_config(const Form& form) {
    using namespace literals;
    const auto hidden = dim<"hidden">(form);
    const auto head_k_dim = dim<"linear_key_head_dim">(form);
    const auto head_v_dim = dim<"linear_value_head_dim">(form);
    const auto d_conv = dim<"linear_conv_kernel_dim">(form);
    const auto tp = dim<"tp">(form);
    require_nonzero(tp), require_nonzero(head_k_dim), require_nonzero(head_v_dim), require_nonzero(d_conv);
    const auto k_heads_per_rank = dim<"linear_num_key_heads">(form) / tp;
    const auto v_heads_per_rank = dim<"linear_num_value_heads">(form) / tp;
    // q and k (k heads × head_k_dim each), v and the output gate z (v heads × head_v_dim each)
    const auto qkvz_n = 2_c * k_heads_per_rank * head_k_dim + 2_c * v_heads_per_rank * head_v_dim;
    const auto ba_n = 2_c * v_heads_per_rank;  // β's and the decay's input, one each per v head
    const auto out_k = v_heads_per_rank * head_v_dim;
    const auto has_allreduce = greater_than_one(tp);
    const double allreduce_bytes_per_token = double(hidden.value()) * bytes_per_element(values(form).dtype);
    COSTDSL_RESOLVED(hidden, head_k_dim, head_v_dim, d_conv, tp, k_heads_per_rank, v_heads_per_rank, qkvz_n, ba_n,
                     out_k, has_allreduce, allreduce_bytes_per_token);
  }
  using Resolved = decltype(resolve_config(std::declval<const Form&>()));

  explicit GdnBlockTp(const Form& form) : form_(form), r_(resolve_config(form)) {}

  const Resolved& resolved() const noexcept { return r_; }

  auto build(const Timing& t) const {
    check_no_fp8_producers(form_, "GdnBlockTp");
    using namespace kernels;
    const Dtype dtype = values(form_).dtype, w = gemm_weight_dtype(form_);
    const std::string label = detail::worklet_label(
        Name.view(), "GdnBlockTp",
        {{"tp", r_.tp}, {"k/rank", r_.k_heads_per_rank}, {"v/rank", r_.v_heads_per_rank}});
    return labeled<Name>(
        label,
        sum(leaf<"input_norm">(Kernel<RmsNorm>(t, {dtype, to_dim(r_.hidden)})),
            leaf<"in_proj_qkvz">(Kernel<Gemm>(t, {w, to_dim(r_.qkvz_n), to_dim(r_.hidden)})),
            leaf<"in_proj_ba">(Kernel<Gemm>(t, {w, to_dim(r_.ba_n), to_dim(r_.hidden)})),
            ops::GatedDeltaNet::build(t, {dtype, to_dim(r_.k_heads_per_rank), to_dim(r_.head_k_dim),
                                          to_dim(r_.v_heads_per_rank), to_dim(r_.head_v_dim), to_dim(r_.d_conv)}),
            leaf<"norm">(Kernel<RmsNorm>(t, {dtype, to_dim(r_.head_v_dim)})),
            leaf<"norm_gate">(Kernel<SiluAndMul>(t, {dtype, to_dim(r_.out_k)})),
            leaf<"out_proj">(Kernel<Gemm>(t, {w, to_dim(r_.hidden), to_dim(r_.out_k)})),
            when(r_.has_allreduce, leaf<"tp_allreduce">(Kernel<AllReduce>(t, {to_dim(r_.tp)})))));
  }

  // Slot inputs in build() order; m = batch_tokens for every projection, one norm row per
  // token and v head.
  auto inputs(const Input& in) const {
    const std::uint64_t m = in.batch_tokens;
    return nest<Name>(costdsl::inputs(
        input<"input_norm">(kernels::RmsNorm::Input{m}), input<"in_proj_qkvz">(kernels::Gemm::Input{m}),
        input<"in_proj_ba">(kernels::Gemm::Input{m}), ops::GatedDeltaNet::inputs(in.attention),
        input<"norm">(kernels::RmsNorm::Input{m * r_.v_heads_per_rank.value()}),
        input<"norm_gate">(kernels::SiluAndMul::Input{m}), input<"out_proj">(kernels::Gemm::Input{m}),
        when(r_.has_allreduce, input<"tp_allreduce">(kernels::AllReduce::Input{static_cast<std::uint64_t>(
                                   double(m) * r_.allreduce_bytes_per_token)}))));
  }

 private:
  Form form_;
  Resolved r_;
};

}  // namespace costdsl::worklets
