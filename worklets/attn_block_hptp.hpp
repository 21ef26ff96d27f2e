#pragma once
// L3 attn_block_hptp: KV-parallel attention (Helix, Bhatia et al. arXiv 2507.07120; vLLM
// decode context parallelism) on N = hp × tp GPUs, ending at the all-reduce over N.
// Heads are split tp ways and replicated over the hp ranks; every request's KV is split
// hp ways, so each GPU attends over its own slice and the partial outputs are made exact
// by an all-to-all and a log-sum-exp merge:
//   input_norm → qkv_proj → [q_norm, k_norm] → rope → (kv_cache_append, prefill, decode)
//   → hp_all_to_all (hp > 1) → hp_combine (hp > 1) → o_proj (row-parallel over N)
//   → tp_allreduce (N > 1)
// At hp = 1 this is attn_block_tp leaf for leaf, number for number (static hp: the same
// slots; run-time hp: the two hp slots push zero). With tp = 1 it is the `hp` grain
// (KV split alone), which needs no worklet of its own.
//
// KV placement, as TensorRT-LLM's helix does it: each request's KV is cut into blocks of
// kv_block_tokens, dealt round-robin over the hp ranks from rank 0, and a new token's K
// and V are written only by the rank that owns its block. kv_cache_append and decode are
// each ONE slot that runs every hp rank's launch and folds them with the Max algebra (time
// = slowest rank, its gap the slice imbalance; work sums): ranks never get slots (INV-1).
// Given storage (Input::loads: an arch's inputs(it, scratch)), inputs() deals the batch
// over the ranks once per iteration and both slots read those loads; without, each slot
// deals it itself.
//
// hp is a decode-side degree wherever it ships: vLLM's decode context parallelism and
// TensorRT-LLM's helix take the KV from a prefill server, so an hp > 1 iteration rejects
// prefill chunks (InputError) rather than model a prefill no framework runs.
#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "costdsl/concepts.hpp"
#include "costdsl/detail/str.hpp"
#include "costdsl/dim_expr.hpp"
#include "costdsl/dtype.hpp"
#include "costdsl/error.hpp"
#include "costdsl/fixed_string.hpp"
#include "costdsl/form.hpp"
#include "costdsl/inputs.hpp"
#include "costdsl/kernel.hpp"
#include "costdsl/kernels/all_reduce.hpp"
#include "costdsl/kernels/all_to_all.hpp"
#include "costdsl/kernels/attn_decode.hpp"
#include "costdsl/kernels/attn_prefill.hpp"
#include "costdsl/kernels/gemm.hpp"
#include "costdsl/kernels/kv_cache_append.hpp"
#include "costdsl/kernels/merge_attn_states.hpp"
#include "costdsl/labeled.hpp"
#include "costdsl/leaf.hpp"
#include "costdsl/metrics.hpp"
#include "costdsl/ops/attention/attention.hpp"
#include "costdsl/ops/attention/hp_exchange.hpp"
#include "costdsl/ops/attention/kv_slices.hpp"
#include "costdsl/quantities.hpp"
#include "costdsl/resolved.hpp"
#include "costdsl/static_value.hpp"
#include "costdsl/sum.hpp"
#include "costdsl/timing.hpp"
#include "costdsl/when.hpp"
#include "costdsl/ops/attention/body.hpp"
#include "costdsl/worklets/detail/weight_dtype.hpp"
#include "costdsl/worklets/detail/label.hpp"

namespace costdsl::worklets {

template <class Form, FixedString Name = "attn", ops::QkNorm Norm = ops::QkNorm::none>
class AttnBlockHptp {
  static_assert(Norm != ops::QkNorm::per_layer,
                "costdsl: the per-layer q/k norm's all-reduce over the tp group is modelled in attn_block_tp only");

 public:
  // Config: the form's hidden, num_qo_heads, num_kv_heads, head_dim, tp, hp, dtype, kv_dtype, hop_b
  // (and gemm_dtype, the projections' weights, where the form has one).
  struct Input {
    std::uint64_t batch_tokens = 0;  // Σ append + decodes: rows through the projections
    ops::AttentionWork attention;
    std::span<const std::uint32_t> decode_kv;  // the decodes' KV lengths, sliced per hp rank
    // Where the per-rank loads are dealt once for both rank-folded slots (at least hp long;
    // the inputs borrow it). Empty: each slot deals the batch itself.
    std::span<ops::KvSlices::RankLoad> loads = {};
    // Where the batch is written once for the three slots that read it (the inputs borrow
    // it). Null: the inputs own it.
    ops::KvSlices* slices = nullptr;
    std::uint32_t decode_rows = 1;  // query rows per decode (ops::AttentionBatch::decode_rows)
  };
  static constexpr std::uint64_t max_hp = ops::KvSlices::max_hp;

  static constexpr auto resolve_config(const Form& form) {
    using namespace literals;
    const auto hidden = dim<"hidden">(form);
    const auto num_qo_heads = dim<"num_qo_heads">(form);
    const auto num_kv_heads = dim<"num_kv_heads">(form);
    const auto head_dim = dim<"head_dim">(form);
    const auto tp = dim<"tp">(form);
    const auto hp = dim<"hp">(form);
    // tp first, in attn_block_tp's order: its rejections read the same here.
    require_nonzero(tp);
    require_le<"tp may not exceed num_kv_heads (KV heads are not replicated)">(tp, num_kv_heads);
    const auto num_qo_heads_per_rank = num_qo_heads / tp;
    const auto num_kv_heads_per_rank = num_kv_heads / tp;
    require_nonzero(hp);
    require_le<"hp may not exceed max_hp">(hp, sym<"max_hp">(Static<max_hp>{}));
    const auto gpus = hp * tp;  // N = hp × tp
    const auto num_qo_heads_per_gpu = num_qo_heads / gpus;  // the heads each GPU merges and projects out
    const auto qkv_n = (num_qo_heads_per_rank + 2_c * num_kv_heads_per_rank) * head_dim;
    const auto o_proj_k = num_qo_heads_per_gpu * head_dim;
    const auto has_hp = greater_than_one(hp);
    const auto has_allreduce = greater_than_one(gpus);
    const Dtype dtype = values(form).dtype;
    // Each GPU's partial outputs, all tokens × its tp rank's heads, with one fp32 LSE per
    // token and head; (hp − 1)/hp of it leaves the GPU (AllToAll's bus factor).
    const double a2a_bytes_per_token = double(num_qo_heads_per_rank.value()) *
                                       (double(head_dim.value()) * bytes_per_element(dtype) +
                                        bytes_per_element(Dtype::fp32));
    // the full hidden-wide partial sum, not hidden/N
    const double allreduce_bytes_per_token = double(hidden.value()) * bytes_per_element(dtype);
    COSTDSL_RESOLVED(hidden, head_dim, tp, hp, gpus, num_qo_heads_per_rank, num_kv_heads_per_rank,
                     num_qo_heads_per_gpu, qkv_n, o_proj_k, has_hp, has_allreduce, a2a_bytes_per_token,
                     allreduce_bytes_per_token);
  }
  using Resolved = decltype(resolve_config(std::declval<const Form&>()));

  explicit AttnBlockHptp(const Form& form) : form_(form), r_(resolve_config(form)) {}

  const Resolved& resolved() const noexcept { return r_; }

  auto build(const Timing& t) const {
    using namespace kernels;
    const auto& v = values(form_);
    const std::string label = detail::worklet_label(
        Name.view(), "AttnBlockHptp",
        {{"hp", r_.hp}, {"tp", r_.tp}, {"qo/rank", r_.num_qo_heads_per_rank}, {"kv/rank", r_.num_kv_heads_per_rank},
         {"qo/gpu", r_.num_qo_heads_per_gpu}});
    const Dim qo = to_dim(r_.num_qo_heads_per_rank), kv = to_dim(r_.num_kv_heads_per_rank),
              hd = to_dim(r_.head_dim);
    const ops::ProjectionDtypes proj = projection_dtypes(form_);
    return labeled<Name>(
        label,
        sum(ops::pre_attention_slots<Norm>(t, v.dtype, proj, r_),
            // Nested as the attention op nests them: the same fold order as attn_block_tp.
            sum(leaf<"kv_cache_append">(ops::HpRankFolded<KvCacheAppend>{Kernel<KvCacheAppend>(t, {v.kv_dtype, kv, hd})}),
                leaf<"prefill">(ops::ChunkedPrefill<AttnPrefill>{Kernel<AttnPrefill>(t, {ops::attention_prefill_dtype(v.dtype, v.kv_dtype), qo, kv, hd, 0})}),
                leaf<"decode">(ops::HpRankFolded<AttnDecode>{Kernel<AttnDecode>(t, {v.kv_dtype, qo, kv, hd})})),
            when(r_.has_hp, leaf<"hp_all_to_all">(ops::HpExchange<>{
                                Kernel<AllToAll>(t, {to_dim(r_.hp)}),
                                ops::HpRankFolded<AttnDecode>{Kernel<AttnDecode>(t, {v.kv_dtype, qo, kv, hd})}, v.hop_b,
                                r_.a2a_bytes_per_token})),
            when(r_.has_hp, leaf<"hp_combine">(Kernel<MergeAttnStates>(
                                t, {v.dtype, to_dim(r_.num_qo_heads_per_gpu), hd, to_dim(r_.hp)}))),
            leaf<"o_proj">(Kernel<Gemm>(t, {proj.weights, to_dim(r_.hidden), to_dim(r_.o_proj_k), proj.from_attention})),
            when(r_.has_allreduce, leaf<"tp_allreduce">(Kernel<AllReduce>(t, {to_dim(r_.gpus)})))));
  }

  // Slot inputs in build() order; m = batch_tokens for every projection, and every hp
  // rank computes partial outputs for all m tokens.
  auto inputs(const Input& in) const {
    const std::uint64_t m = in.batch_tokens;
    const auto hp = static_cast<std::uint32_t>(r_.hp.value());
    if (hp > 1 && !in.attention.prefill.empty())
      throw InputError(costdsl::detail::str(
          "hp ", hp, ": an iteration with ", in.attention.prefill.size(),
          " prefill chunk(s) under KV-parallel attention; hp is a decode-side degree (vLLM's decode context "
          "parallelism and TensorRT-LLM's helix take the KV from a prefill server): run prefill at hp 1"));
    ops::KvSlices batch{in.decode_kv, in.attention.append_tokens - in.attention.decode_count, hp, in.decode_rows};
    if (!in.loads.empty()) batch.deal_into(in.loads);
    ops::KvSlicesRef slices = ops::KvSlicesRef::write(in.slices, batch);
    const ops::KvSlices& held = *slices;
    return nest<Name>(costdsl::inputs(
        ops::pre_attention_slot_inputs<Norm>(m, r_), input<"kv_cache_append">(std::move(slices)),
        input<"prefill">(in.attention.prefill), input<"decode">(ops::KvSlicesRef(held)),
        when(r_.has_hp, input<"hp_all_to_all">(
                            ops::HpExchange<>::Input{ops::KvSlicesRef(held), m - in.attention.decode_count})),
        when(r_.has_hp, input<"hp_combine">(kernels::MergeAttnStates::Input{m})),
        input<"o_proj">(kernels::Gemm::Input{m}),
        when(r_.has_allreduce, input<"tp_allreduce">(kernels::AllReduce::Input{
                                   static_cast<std::uint64_t>(double(m) * r_.allreduce_bytes_per_token)}))));
  }

 private:
  Form form_;
  Resolved r_;
};

}  // namespace costdsl::worklets
