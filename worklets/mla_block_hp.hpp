#pragma once
// L3 mla_block_hp: DeepSeek-V3 MLA attention split by KV sequence over one group of hp GPUs
// (Helix for MLA, Bhatia et al. arXiv 2507.07120; TensorRT-LLM's helix for DeepSeek),
// ending at the all-reduce over the group. MLA has ONE latent KV head shared by every
// query head, so attention cannot be split by KV heads (no tp): every GPU of the group
// holds all heads and every token, and each request's latent KV is dealt over the hp ranks.
//   input_norm → q_a_proj → q_a_norm → q_b_proj → kv_a_proj → kv_a_norm → rope
//   → (kv_cache_append, kv_b_proj, prefill, q_absorb, decode) → hp_all_to_all (hp > 1)
//   → hp_combine (hp > 1) → o_absorb (heads/hp) → o_proj (row-parallel over hp)
//   → tp_allreduce (hp > 1)
// The projections up to q_absorb are replicated on the hp ranks (each sees all the group's
// tokens); the KV deal, the owner-only append and the Max over ranks of the partial decode
// are attn_block_hptp's (ops::KvSlices, ops::HpRankFolded: the same blocks of 32 tokens round-robin
// from rank 0, one slot each, time of the slowest rank, work of all).
//
// What the all-to-all carries: absorbed MLA decode (FlashMLA) ends at the latent output,
// per head kv_lora_rank wide, before W_UV (o_absorb). The LSE merge is a weighted sum and
// W_UV is linear, so either side would be exact; production exchanges the latent output
// (TensorRT-LLM's helix_post_process takes [cp, tokens, heads, kv_lora_rank]) and applies
// W_UV after the merge on the heads/hp the all-to-all leaves each GPU. Doing W_UV first
// would shrink the message 4× (v_head_dim 128 vs 512) but run it on all heads on every rank.
// So: tokens × num_heads × (kv_lora_rank × dtype + one fp32 LSE), (hp − 1)/hp of it leaving
// each GPU. TensorRT-LLM ships two fp32 softmax stats (max, sum) per head instead of the
// LSE: 4 B more on 1,028 B per head (0.4%), not modelled.
//
// HOP-B (the form's hop_b) as for GQA: the exchange's pipeline times each batch slice's
// attention with the decode slot's own mla_decode launch (ops::HpExchange<MlaDecode>).
//
// At hp = 1 this is mla_block_tp at tp = 1 slot for slot (the two hp slots push zero, no
// all-reduce); the DeepSeek-V3 arch still builds mla_block_tp there (AttnGrain::tp), so
// hp = 1 stays today's tree. hp is a decode-side degree: an hp > 1 iteration rejects
// prefill chunks (InputError), as attn_block_hptp does.
#include <cstdint>
#include <span>
#include <string>

#include "costdsl/detail/str.hpp"
#include "costdsl/dim.hpp"
#include "costdsl/dim_expr.hpp"
#include "costdsl/dtype.hpp"
#include "costdsl/error.hpp"
#include "costdsl/fixed_string.hpp"
#include "costdsl/form.hpp"
#include "costdsl/inputs.hpp"
#include "costdsl/kernel.hpp"
#include "costdsl/kernels/all_reduce.hpp"
#include "costdsl/kernels/all_to_all.hpp"
#include "costdsl/kernels/gemm.hpp"
#include "costdsl/kernels/grouped_gemm.hpp"
#include "costdsl/kernels/kv_cache_append.hpp"
#include "costdsl/kernels/merge_attn_states.hpp"
#include "costdsl/kernels/mla_decode.hpp"
#include "costdsl/kernels/mla_prefill.hpp"
#include "costdsl/kernels/rms_norm.hpp"
#include "costdsl/kernels/rope.hpp"
#include "costdsl/labeled.hpp"
#include "costdsl/leaf.hpp"
#include "costdsl/ops/attention/attention.hpp"
#include "costdsl/ops/attention/hp_exchange.hpp"
#include "costdsl/ops/attention/kv_slices.hpp"
#include "costdsl/ops/attention/mla.hpp"
#include "costdsl/resolved.hpp"
#include "costdsl/static_value.hpp"
#include "costdsl/sum.hpp"
#include "costdsl/timing.hpp"
#include "costdsl/when.hpp"
#include "costdsl/worklets/detail/label.hpp"
#include "costdsl/worklets/detail/weight_dtype.hpp"

namespace costdsl::worklets {

template <class Form, FixedString Name = "attn">
class MlaBlockHp {
 public:
  // Config: the form's hidden, num_heads, q_lora_rank, kv_lora_rank, qk_nope_head_dim,
  // qk_rope_head_dim, v_head_dim, hp, dtype, kv_dtype, hop_b (and gemm_dtype where the form
  // has one).
  struct Input {
    std::uint64_t batch_tokens = 0;  // Σ append + decodes of the group: rows through the projections
    ops::MlaWork mla;
    std::span<const std::uint32_t> decode_kv;  // the group's decodes' KV lengths, dealt over the hp ranks
    // Where the batch is written once for the three slots that read it (the inputs borrow
    // it). Null: the inputs own it.
    ops::KvSlices* slices = nullptr;
    std::uint32_t decode_rows = 1;  // query rows per decode (ops::AttentionBatch::decode_rows)
  };
  static constexpr std::uint64_t max_hp = ops::KvSlices::max_hp;

  static constexpr auto resolve_config(const Form& form) {
    using namespace literals;
    const auto hidden = dim<"hidden">(form);
    const auto num_heads = dim<"num_heads">(form);
    const auto q_lora_rank = dim<"q_lora_rank">(form);
    const auto kv_lora_rank = dim<"kv_lora_rank">(form);
    const auto qk_nope_head_dim = dim<"qk_nope_head_dim">(form);
    const auto qk_rope_head_dim = dim<"qk_rope_head_dim">(form);
    const auto v_head_dim = dim<"v_head_dim">(form);
    const auto hp = dim<"hp">(form);
    require_nonzero(q_lora_rank);
    require_nonzero(kv_lora_rank);
    require_nonzero(num_heads);
    require_nonzero(hp);
    require_le<"hp may not exceed max_hp">(hp, sym<"max_hp">(Static<max_hp>{}));
    // The all-to-all deals the heads: each GPU merges and projects out num_heads / hp of them.
    const auto num_heads_per_gpu = num_heads / hp;
    const auto q_b_n = num_heads * (qk_nope_head_dim + qk_rope_head_dim);
    const auto kv_a_n = kv_lora_rank + qk_rope_head_dim;
    // The latent as K and V planes of half its width (ops/attention/mla.hpp); odd is a ConfigError.
    const auto latent_half = (kv_lora_rank + qk_rope_head_dim) / 2_c;
    const auto kv_b_n = num_heads * (qk_nope_head_dim + v_head_dim);
    const auto o_proj_k = num_heads_per_gpu * v_head_dim;
    const auto has_hp = greater_than_one(hp);  // the exchange, the merge and the all-reduce over the group
    const Dtype dtype = values(form).dtype;
    // every head's latent output and fp32 LSE on one GPU
    const double a2a_bytes_per_token =
        double(num_heads.value()) * (double(kv_lora_rank.value()) * bytes_per_element(dtype) +
                                     bytes_per_element(Dtype::fp32));
    // the full hidden-wide partial sum, not hidden/hp
    const double allreduce_bytes_per_token = double(hidden.value()) * bytes_per_element(dtype);
    COSTDSL_RESOLVED(hidden, num_heads, q_lora_rank, kv_lora_rank, qk_nope_head_dim, qk_rope_head_dim, v_head_dim,
                     hp, num_heads_per_gpu, q_b_n, kv_a_n, latent_half, kv_b_n, o_proj_k, has_hp,
                     a2a_bytes_per_token, allreduce_bytes_per_token);
  }
  using Resolved = decltype(resolve_config(std::declval<const Form&>()));

  explicit MlaBlockHp(const Form& form) : form_(form), r_(resolve_config(form)) {}

  const Resolved& resolved() const noexcept { return r_; }

  auto build(const Timing& t) const {
    check_no_fp8_producers(form_, "MlaBlockHp");
    using namespace kernels;
    const auto& v = values(form_);
    const Dim hidden = to_dim(r_.hidden), heads = to_dim(r_.num_heads), latent = to_dim(r_.kv_lora_rank);
    const std::string label = detail::worklet_label(
        Name.view(), "MlaBlockHp", {{"hp", r_.hp}, {"heads/gpu", r_.num_heads_per_gpu}, {"latent", r_.kv_a_n}});
    const MlaPrefill::Config prefill{v.dtype, heads, latent, to_dim(r_.qk_nope_head_dim), to_dim(r_.qk_rope_head_dim),
                                     to_dim(r_.v_head_dim)};
    const MlaDecode::Config decode{v.kv_dtype, heads, latent, to_dim(r_.qk_nope_head_dim),
                                   to_dim(r_.qk_rope_head_dim), to_dim(r_.v_head_dim)};
    return labeled<Name>(
        label,
        sum(leaf<"input_norm">(Kernel<RmsNorm>(t, {v.dtype, hidden})),
            leaf<"q_a_proj">(Kernel<Gemm>(t, {gemm_weight_dtype(form_), to_dim(r_.q_lora_rank), hidden})),
            leaf<"q_a_norm">(Kernel<RmsNorm>(t, {v.dtype, to_dim(r_.q_lora_rank)})),
            leaf<"q_b_proj">(Kernel<Gemm>(t, {gemm_weight_dtype(form_), to_dim(r_.q_b_n), to_dim(r_.q_lora_rank)})),
            leaf<"kv_a_proj">(Kernel<Gemm>(t, {gemm_weight_dtype(form_), to_dim(r_.kv_a_n), hidden})),
            leaf<"kv_a_norm">(Kernel<RmsNorm>(t, {v.dtype, latent})),
            leaf<"rope">(Kernel<Rope>(t, {v.dtype, heads, Dim{1}, to_dim(r_.qk_rope_head_dim)})),
            // The MLA op's slots (nested as ops::Mla nests them: at hp 1 the same fold order as
            // mla_block_tp), the append and the decode folded over the hp ranks, the exchange
            // and the merge between the decode and W_UV.
            sum(leaf<"kv_cache_append">(
                    ops::HpRankFolded<KvCacheAppend>{Kernel<KvCacheAppend>(t, {v.kv_dtype, Dim{1}, to_dim(r_.latent_half)})}),
                leaf<"kv_b_proj">(Kernel<Gemm>(t, {gemm_weight_dtype(form_), to_dim(r_.kv_b_n), latent})),
                leaf<"prefill">(ops::ChunkedPrefill<MlaPrefill>{Kernel<MlaPrefill>(t, prefill)}),
                leaf<"q_absorb">(Kernel<GroupedGemm>(t, {v.dtype, heads, latent, to_dim(r_.qk_nope_head_dim)})),
                leaf<"decode">(ops::HpRankFolded<MlaDecode>{Kernel<MlaDecode>(t, decode)}),
                when(r_.has_hp, leaf<"hp_all_to_all">(ops::HpExchange<MlaDecode>{
                                    Kernel<AllToAll>(t, {to_dim(r_.hp)}),
                                    ops::HpRankFolded<MlaDecode>{Kernel<MlaDecode>(t, decode)}, v.hop_b,
                                    r_.a2a_bytes_per_token})),
                when(r_.has_hp, leaf<"hp_combine">(Kernel<MergeAttnStates>(
                                    t, {v.dtype, to_dim(r_.num_heads_per_gpu), latent, to_dim(r_.hp)}))),
                leaf<"o_absorb">(
                    Kernel<GroupedGemm>(t, {v.dtype, to_dim(r_.num_heads_per_gpu), to_dim(r_.v_head_dim), latent}))),
            leaf<"o_proj">(Kernel<Gemm>(t, {gemm_weight_dtype(form_), hidden, to_dim(r_.o_proj_k)})),
            when(r_.has_hp, leaf<"tp_allreduce">(Kernel<AllReduce>(t, {to_dim(r_.hp)})))));
  }

  // Slot inputs in build() order; m = batch_tokens for every projection: every hp rank
  // projects, and computes partial outputs for, all the group's tokens.
  auto inputs(const Input& in) const {
    using namespace kernels;
    const std::uint64_t m = in.batch_tokens;
    const auto hp = static_cast<std::uint32_t>(r_.hp.value());
    if (hp > 1 && !in.mla.prefill.empty())
      throw InputError(costdsl::detail::str(
          "hp ", hp, ": an iteration with ", in.mla.prefill.size(),
          " prefill chunk(s) under KV-parallel attention; hp is a decode-side degree (vLLM's decode context "
          "parallelism and TensorRT-LLM's helix take the KV from a prefill server): run prefill at hp 1"));
    ops::KvSlicesRef slices =
        ops::KvSlicesRef::write(in.slices, {in.decode_kv, in.mla.append_tokens - in.mla.decode_count, hp, in.decode_rows});
    const ops::KvSlices& held = *slices;
    const std::uint64_t decodes = in.mla.decode_count;
    return nest<Name>(costdsl::inputs(
        input<"input_norm">(RmsNorm::Input{m}), input<"q_a_proj">(Gemm::Input{m}),
        input<"q_a_norm">(RmsNorm::Input{m}), input<"q_b_proj">(Gemm::Input{m}), input<"kv_a_proj">(Gemm::Input{m}),
        input<"kv_a_norm">(RmsNorm::Input{m}), input<"rope">(Rope::Input{m}),
        costdsl::inputs(
            input<"kv_cache_append">(std::move(slices)), input<"kv_b_proj">(Gemm::Input{in.mla.expanded_rows}),
            input<"prefill">(in.mla.prefill), input<"q_absorb">(GroupedGemm::Input{decodes * r_.num_heads.value(), 0}),
            input<"decode">(ops::KvSlicesRef(held)),
            when(r_.has_hp, input<"hp_all_to_all">(ops::HpExchange<MlaDecode>::Input{ops::KvSlicesRef(held), m - decodes})),
            when(r_.has_hp, input<"hp_combine">(MergeAttnStates::Input{m})),
            input<"o_absorb">(GroupedGemm::Input{decodes * r_.num_heads_per_gpu.value(), 0})),
        input<"o_proj">(Gemm::Input{m}),
        when(r_.has_hp, input<"tp_allreduce">(AllReduce::Input{
                            static_cast<std::uint64_t>(double(m) * r_.allreduce_bytes_per_token)}))));
  }

 private:
  Form form_;
  Resolved r_;
};

}  // namespace costdsl::worklets
