#pragma once
// L4 Qwen3 dense (8B, 32B): Llama-3's layer with a per-head RMSNorm on q and k between
// the QKV projection and the rotary embedding (the q_norm / k_norm leaves Qwen3-MoE has).
//
//   model = Sum(embed, layer × L (attn_block_tp with q/k norm, mlp_block_tp), lm_head)
//
// One definition, two forms: Qwen3<Fixed<cfg>> has compile-time dims and tp (tp 16 on
// 8 KV heads does not compile); Qwen3<Qwen3Config> takes them from a config.json at
// run time and throws a ConfigError instead. The attention grains and KV-head
// replication are Llama's (worklets/attn_grain.hpp): hp > 1 runs attn_block_hptp with
// the q/k norm on hp × tp GPUs and the FFN over all of them.
#include <cstdint>
#include <span>
#include <string>
#include <type_traits>

#include "costdsl/archs/support/input_scratch.hpp"
#include "costdsl/dim_expr.hpp"
#include "costdsl/dtype.hpp"
#include "costdsl/fields.hpp"
#include "costdsl/form.hpp"
#include "costdsl/hf_config.hpp"
#include "costdsl/inputs.hpp"
#include "costdsl/labeled.hpp"
#include "costdsl/ops/attention/attention.hpp"
#include "costdsl/scale.hpp"
#include "costdsl/sum.hpp"
#include "costdsl/timing.hpp"
#include "costdsl/worklets/attn_block_hptp.hpp"
#include "costdsl/worklets/attn_block_tp.hpp"
#include "costdsl/worklets/attn_grain.hpp"
#include "costdsl/worklets/embed_local.hpp"
#include "costdsl/worklets/lm_head_local.hpp"
#include "costdsl/worklets/detail/weight_dtype.hpp"
#include "costdsl/worklets/mlp_block_tp.hpp"

namespace costdsl::archs {

struct Qwen3Config {
  COSTDSL_FIELDS((std::uint32_t, hidden), (std::uint32_t, num_qo_heads),
                 (std::uint32_t, num_kv_heads), (std::uint32_t, head_dim), (std::uint32_t, intermediate),
                 (std::uint32_t, vocab), (std::uint32_t, num_layers), (std::uint32_t, tp), (std::uint32_t, hp),
                 (Dtype, dtype), (Dtype, kv_dtype), (Dtype, gemm_dtype), (bool, kv_replicate),
                 (bool, hop_b));

  constexpr Qwen3Config with_tp(std::uint32_t degree) const {
    Qwen3Config c = *this;
    c.tp = degree;
    return c;
  }
  constexpr Qwen3Config with_hp(std::uint32_t degree) const {
    Qwen3Config c = *this;
    c.hp = degree;
    return c;
  }

  // head_dim is required: Qwen3 decouples it from hidden / heads (32B: 5120 / 64 = 80, head_dim 128).
  static Qwen3Config from_hf(const HfConfig& hf, std::uint32_t tp, std::uint32_t hp = 1) {
    const std::uint32_t heads = hf.dim("num_attention_heads");
    const Quantization q = hf.quantization();
    return {hf.dim("hidden_size"),
            heads,
            hf.dim("num_key_value_heads", heads),
            hf.dim("head_dim"),
            hf.dim("intermediate_size"),
            hf.dim("vocab_size"),
            hf.dim("num_hidden_layers"),
            tp,
            hp,
            hf.dtype(),
            q.kv,
            q.gemm,
            false,
            false};
  }
};

// Published shapes (data/models/qwen3_8b.json, qwen3_32b.json are the source of truth; a test checks they agree).
inline constexpr Qwen3Config qwen3_8b{
    .hidden = 4096, .num_qo_heads = 32, .num_kv_heads = 8, .head_dim = 128,
    .intermediate = 12288, .vocab = 151936, .num_layers = 36, .tp = 1, .hp = 1,
    .dtype = Dtype::bf16, .kv_dtype = Dtype::bf16, .gemm_dtype = Dtype::bf16, .kv_replicate = false, .hop_b = false};
inline constexpr Qwen3Config qwen3_32b{
    .hidden = 5120, .num_qo_heads = 64, .num_kv_heads = 8, .head_dim = 128,
    .intermediate = 25600, .vocab = 151936, .num_layers = 64, .tp = 1, .hp = 1,
    .dtype = Dtype::bf16, .kv_dtype = Dtype::bf16, .gemm_dtype = Dtype::bf16, .kv_replicate = false, .hop_b = false};

template <class Form, worklets::AttnGrain Grain = worklets::default_grain<Form>>
class Qwen3 {
  static constexpr bool hptp = Grain == worklets::AttnGrain::hptp;
  using AttnForm = decltype(worklets::attention_form(std::declval<const Form&>()));
  using FfnForm = decltype(worklets::ffn_form<Grain>(std::declval<const Form&>()));
  using Attn = std::conditional_t<hptp, worklets::AttnBlockHptp<AttnForm, "attn", worklets::QkNorm::per_head>,
                                  worklets::AttnBlockTp<AttnForm, "attn", worklets::QkNorm::per_head>>;

 public:
  explicit Qwen3(const Form& form = {})
      : form_(form),
        embed_(form),
        attn_(worklets::attention_form(form)),
        mlp_(worklets::ffn_form<Grain>(form)),
        head_(form) {
    require_nonzero(dim<"num_layers">(form));
  }

  auto build(const Timing& t) const {
    const auto& c = values(form_);
    return labeled<"model">(
        "model (Qwen3) [" + (hptp ? "hp=" + std::to_string(c.hp) + ", " : std::string()) +
            "tp=" + std::to_string(c.tp) + ", layers=" + std::to_string(c.num_layers) +
            ", hidden=" + std::to_string(c.hidden) + "]",
        sum(embed_.build(t),
            labeled<"layer">("layer (decoder layer)", scale(dim<"num_layers">(form_), sum(attn_.build(t), mlp_.build(t)))),
            head_.build(t)));
  }

  // Mixed prefill + decode iterations share one projection spine (as in Llama3).
  // inputs(it) is self-contained (under hptp each rank-folded slot deals the KV itself);
  // inputs(it, scratch) deals it once, for both, into the scratch, which the inputs borrow
  // until it is used again: nothing allocated once warm (archs::BatchFeed passes one).
  auto inputs(const ops::AttentionBatch& it) const { return inputs_with(it, std::span<worklets::KvSlices::RankLoad>{}); }
  auto inputs(const ops::AttentionBatch& it, InputScratch& scratch) const
    requires hptp
  {
    scratch.reset();
    return inputs_with(it, scratch.take<worklets::KvSlices::RankLoad>(values(form_).hp));
  }

  // KV cache bytes one token occupies across the whole model (each KV head once), and on
  // one GPU: a token's KV lives on one hp rank, split over its tp ranks' (replicated) heads.
  double kv_bytes_per_token() const { return worklets::kv_bytes_per_token(form_, values(form_).num_kv_heads); }
  double kv_bytes_per_token_per_gpu() const { return worklets::kv_bytes_per_token_per_gpu(form_); }

  // Weight bytes on one GPU: the sharded layers plus the local embed and (untied) lm_head;
  // QKV split tp ways (replicated KV heads counted per copy), o_proj and the FFN over hp × tp.
  double weight_bytes_per_gpu() const {
    const auto& c = values(form_);
    const double h = c.hidden, hd = c.head_dim, tp = c.tp, n = tp * c.hp, kv = worklets::stored_kv_heads(form_);
    const double attn = h * (c.num_qo_heads + 2.0 * kv) * hd / tp + (c.num_qo_heads * hd / n) * h;
    const double mlp = 3.0 * h * c.intermediate / n;
    const double norms = 2 * h + 2 * hd;  // incl. q/k norm; with embedding and lm_head in the activations' dtype
    return bytes_per_element(worklets::gemm_weight_dtype(form_)) * c.num_layers * (attn + mlp) +
           bytes_per_element(c.dtype) * (c.num_layers * norms + 2.0 * c.vocab * h + h);
  }

  const Form& form() const noexcept { return form_; }

 private:
  auto inputs_with(const ops::AttentionBatch& it, std::span<worklets::KvSlices::RankLoad> loads) const {
    const ops::AttentionWork w = ops::collapse(it);
    const std::uint64_t tokens = w.append_tokens;
    const std::uint64_t requests = it.prefill.size() + w.decode_count;
    return nest<"model">(costdsl::inputs(
        embed_.inputs({tokens}),
        nest<"layer">(costdsl::inputs(worklets::attention_inputs<Grain>(attn_, tokens, w, it, loads),
                                      mlp_.inputs({tokens}))),
        head_.inputs({requests})));
  }

  Form form_;
  worklets::EmbedLocal<Form> embed_;
  Attn attn_;
  worklets::MlpBlockTp<FfnForm> mlp_;
  worklets::LmHeadLocal<Form> head_;
};

#if defined(COSTDSL_SEPARATE_COMPILATION)
// The run-time form is instantiated once, in libcostdsl-compiled (src/archs/qwen3.cpp).
extern template class Qwen3<Qwen3Config>;
extern template class Qwen3<Qwen3Config, worklets::AttnGrain::hptp>;
#endif

}  // namespace costdsl::archs
