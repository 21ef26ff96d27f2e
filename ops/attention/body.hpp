#pragma once
// L2: the per-rank slots of an attention block, shared by the worklets pre_attn_local,
// attn_local, attn_block_tp and attn_block_hptp, so that tp = 1 gives the local leaves by
// construction. Partition math
// stays in each worklet's resolve_config; these functions only read its result:
//   pre-attention: input_norm → qkv_proj → [q_norm, k_norm] → rope
//   attention:     attention op (kv_cache_append, prefill, decode) → [output_gate] → o_proj
// R (a worklet's Resolved) provides hidden, head_dim, num_qo_heads_per_rank,
// num_kv_heads_per_rank, qkv_n and o_proj_k.
#include <cstdint>
#include <type_traits>
#include <utility>

#include "costdsl/detail/tuple.hpp"
#include "costdsl/dim_expr.hpp"
#include "costdsl/dtype.hpp"
#include "costdsl/inputs.hpp"
#include "costdsl/kernel.hpp"
#include "costdsl/kernels/gemm.hpp"
#include "costdsl/kernels/rms_norm.hpp"
#include "costdsl/kernels/rope.hpp"
#include "costdsl/kernels/silu_and_mul.hpp"
#include "costdsl/leaf.hpp"
#include "costdsl/ops/attention/attention.hpp"
#include "costdsl/ops/projection_dtypes.hpp"
#include "costdsl/timing.hpp"
#include "costdsl/when.hpp"

namespace costdsl::ops {

// Qwen3 normalizes q and k per head (an RMSNorm over head_dim) between the projection
// and the rotary embedding; Llama does not. MiniMax-M2 normalizes each token's whole q (and
// k) projection at once (config.json qk_norm_type "per_layer"): under TP a rank holds a
// slice of it, so the mean of squares is summed over the tp ranks first (attn_block_tp's
// qk_norm_allreduce, q's and k's in one all-reduce of 2 fp32 per token, as vLLM's
// MiniMaxText01RMSNormTP.forward_qk does: vllm/model_executor/layers/mamba/linear_attn.py,
// called from models/minimax_m2.py, v0.17 to v0.19).
enum class QkNorm : std::uint8_t { none, per_head, per_layer };

namespace detail {

// The width one q_norm (k_norm) row covers: a head, or the rank's whole projection.
template <QkNorm Norm, class R>
auto qk_norm_width(const R& r, const auto& heads_per_rank) {
  if constexpr (Norm == QkNorm::per_layer) {
    return to_dim(heads_per_rank * r.head_dim);
  } else {
    return to_dim(r.head_dim);
  }
}

}  // namespace detail

// dtype: the activations'; proj: the projections' weights and inputs (worklets/detail/weight_dtype.hpp).
template <QkNorm Norm, class R>
auto pre_attention_slots(const Timing& t, Dtype dtype, const ProjectionDtypes& proj, const R& r) {
  using namespace kernels;
  constexpr std::bool_constant<Norm != QkNorm::none> has_qk_norm{};
  return costdsl::detail::splice(
      leaf<"input_norm">(Kernel<RmsNorm>(t, {dtype, to_dim(r.hidden)})),
      leaf<"qkv_proj">(Kernel<Gemm>(t, {proj.weights, to_dim(r.qkv_n), to_dim(r.hidden), proj.from_norm})),
      when(has_qk_norm, leaf<"q_norm">(Kernel<RmsNorm>(t, {dtype, detail::qk_norm_width<Norm>(r, r.num_qo_heads_per_rank)}))),
      when(has_qk_norm, leaf<"k_norm">(Kernel<RmsNorm>(t, {dtype, detail::qk_norm_width<Norm>(r, r.num_kv_heads_per_rank)}))),
      leaf<"rope">(Kernel<Rope>(t, {dtype, to_dim(r.num_qo_heads_per_rank), to_dim(r.num_kv_heads_per_rank),
                                    to_dim(r.head_dim)})));
}

// m = rows through the projections; the per-head norms see one row per token and head, the
// per-layer ones one per token.
template <QkNorm Norm, class R>
auto pre_attention_slot_inputs(std::uint64_t m, const R& r) {
  constexpr std::bool_constant<Norm != QkNorm::none> has_qk_norm{};
  const std::uint64_t q_rows = Norm == QkNorm::per_layer ? m : m * r.num_qo_heads_per_rank.value();
  const std::uint64_t k_rows = Norm == QkNorm::per_layer ? m : m * r.num_kv_heads_per_rank.value();
  return costdsl::inputs(
      input<"input_norm">(kernels::RmsNorm::Input{m}), input<"qkv_proj">(kernels::Gemm::Input{m}),
      when(has_qk_norm, input<"q_norm">(kernels::RmsNorm::Input{q_rows})),
      when(has_qk_norm, input<"k_norm">(kernels::RmsNorm::Input{k_rows})),
      input<"rope">(kernels::Rope::Input{m}));
}

// window: a sliding-window layer's reach (0 = full attention). Gate: the attention output is
// multiplied by sigmoid of a gate the q projection produced beside q (Qwen3-Next's
// attn_output_gate): one elementwise pass reading both and writing the product, costed as
// silu_and_mul's (the same traffic; sigmoid and SiLU differ by one multiply), o_proj's
// producer then.
template <bool Gate = false, class R>
auto attention_slots(const Timing& t, Dtype dtype, const ProjectionDtypes& proj, Dtype kv_dtype, const R& r,
                     std::uint32_t window = 0) {
  auto attention = Attention::build(
      t, {dtype, kv_dtype, to_dim(r.num_qo_heads_per_rank), to_dim(r.num_kv_heads_per_rank), to_dim(r.head_dim), window});
  auto o_proj = leaf<"o_proj">(Kernel<kernels::Gemm>(
      t, {proj.weights, to_dim(r.hidden), to_dim(r.o_proj_k), Gate ? proj.from_activation : proj.from_attention}));
  if constexpr (Gate) {
    return costdsl::detail::make_tuple(
        std::move(attention), leaf<"output_gate">(Kernel<kernels::SiluAndMul>(t, {dtype, to_dim(r.o_proj_k)})),
        std::move(o_proj));
  } else {
    return costdsl::detail::make_tuple(std::move(attention), std::move(o_proj));
  }
}

template <bool Gate = false>
auto attention_slot_inputs(std::uint64_t m, const AttentionWork& attention) {
  if constexpr (Gate) {
    return costdsl::inputs(Attention::inputs(attention), input<"output_gate">(kernels::SiluAndMul::Input{m}),
                           input<"o_proj">(kernels::Gemm::Input{m}));
  } else {
    return costdsl::inputs(Attention::inputs(attention), input<"o_proj">(kernels::Gemm::Input{m}));
  }
}

}  // namespace costdsl::ops
