#pragma once
// L4 gpt-oss (120b, 20b): Qwen3-MoE's DP-attention + EP layer (no q/k norm, top-4, no shared expert),
// layers alternating sliding-window (128 keys) and full attention, MXFP4 experts under bf16 activations.
//   model = Sum(Max_dp(embed), pair × L/2, Max_dp(lm_head))
//   pair  = Sum(sliding, full), each = Sum(Max_dp(Sum(attn_block_tp, moe_router_local)), moe_expert_ep)
// A sliding layer's decode reads at most `sliding_window` KV tokens (ops::collapse_window) and its
// prefill attends to at most that many keys per query (the prefill kernel's window). Attention
// sinks (one learned logit per head in the softmax denominator) add one exp per query row and head,
// nothing next to the head_dim-wide dot products, so no kernel carries them.
// TP experts (ExpertGrain::tp, as TensorRT-LLM and vLLM run moe_tp_size = tp): one attention
// group of tp GPUs (ep 1, dp 1), every expert split tp ways by its intermediate width
// (moe_expert_tp, an all-reduce after); moe_intermediate % tp == 0 is checked first.
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>

#include "costdsl/archs/support/dp_moe_model.hpp"
#include "costdsl/archs/support/moe_iteration.hpp"
#include "costdsl/dim_expr.hpp"
#include "costdsl/dtype.hpp"
#include "costdsl/error.hpp"
#include "costdsl/fields.hpp"
#include "costdsl/form.hpp"
#include "costdsl/hf_config.hpp"
#include "costdsl/inputs.hpp"
#include "costdsl/labeled.hpp"
#include "costdsl/ops/attention/attention.hpp"
#include "costdsl/scale.hpp"
#include "costdsl/static_value.hpp"
#include "costdsl/sum.hpp"
#include "costdsl/timing.hpp"
#include "costdsl/worklets/attn_block_tp.hpp"
#include "costdsl/worklets/embed_local.hpp"
#include "costdsl/worklets/expert_grain.hpp"
#include "costdsl/worklets/lm_head_local.hpp"
#include "costdsl/worklets/moe_expert_ep.hpp"
#include "costdsl/worklets/moe_expert_tp.hpp"
#include "costdsl/worklets/moe_router_local.hpp"

namespace costdsl::archs {

struct GptOssConfig {
  COSTDSL_FIELDS((std::uint32_t, hidden), (std::uint32_t, num_qo_heads),
                 (std::uint32_t, num_kv_heads), (std::uint32_t, head_dim), (std::uint32_t, moe_intermediate),
                 (std::uint32_t, num_experts), (std::uint32_t, top_k), (std::uint32_t, vocab),
                 (std::uint32_t, num_layers), (std::uint32_t, sliding_window), (std::uint32_t, tp),
                 (std::uint32_t, ep), (Dtype, dtype), (Dtype, kv_dtype), (Dtype, expert_dtype),
                 (Dtype, gemm_dtype));
  // tp: attention TP degree inside a DP group; ep: expert-parallel ranks (= all GPUs).
  constexpr GptOssConfig with_parallel(std::uint32_t tp_degree, std::uint32_t ep_degree) const {
    GptOssConfig c = *this;
    c.tp = tp_degree, c.ep = ep_degree;
    return c;
  }

  // layer_types (absent: HF's default, the same) must alternate sliding and full, sliding
  // first; the quantization (mxfp4 experts as gpt-oss ships them) is the config's (HfConfig::quantization).
  static GptOssConfig from_hf(const HfConfig& hf, std::uint32_t tp, std::uint32_t ep) {
    const std::uint32_t layers = hf.dim("num_hidden_layers");
    const HfConfig::Value* types = hf.find("layer_types");
    bool alternating = !hf.has("layer_types") || types->items.size() == layers;
    for (std::size_t i = 0; alternating && hf.has("layer_types") && i < layers; ++i)
      alternating = types->items[i].text == (i % 2 == 0 ? "sliding_attention" : "full_attention");
    if (!alternating)
      throw DataError(hf.file() + ": layer_types " + types->json + " is not " + std::to_string(layers) + " entries " +
                      "alternating sliding_attention, full_attention (sliding first): GptOss repeats that pair");
    const Quantization q = hf.quantization();
    return {hf.dim("hidden_size"), hf.dim("num_attention_heads"), hf.dim("num_key_value_heads"), hf.dim("head_dim"),
            hf.dim("intermediate_size"), hf.dim("num_local_experts"), hf.dim("num_experts_per_tok"),
            hf.dim("vocab_size"), layers, hf.dim("sliding_window"), tp, ep, hf.dtype(), q.kv, q.moe, q.gemm};
  }
};

// Published shapes (data/models/gpt_oss_*.json are the source of truth; a test checks they agree).
inline constexpr GptOssConfig gpt_oss_120b{
    .hidden = 2880, .num_qo_heads = 64, .num_kv_heads = 8, .head_dim = 64, .moe_intermediate = 2880,
    .num_experts = 128, .top_k = 4, .vocab = 201088, .num_layers = 36, .sliding_window = 128, .tp = 1, .ep = 1,
    .dtype = Dtype::bf16, .kv_dtype = Dtype::bf16, .expert_dtype = Dtype::mxfp4, .gemm_dtype = Dtype::bf16};
inline constexpr GptOssConfig gpt_oss_20b{
    .hidden = 2880, .num_qo_heads = 64, .num_kv_heads = 8, .head_dim = 64, .moe_intermediate = 2880,
    .num_experts = 32, .top_k = 4, .vocab = 201088, .num_layers = 24, .sliding_window = 128, .tp = 1, .ep = 1,
    .dtype = Dtype::bf16, .kv_dtype = Dtype::bf16, .expert_dtype = Dtype::mxfp4, .gemm_dtype = Dtype::bf16};

template <class Form, worklets::ExpertGrain Grain = worklets::default_expert_grain<Form>>
class GptOss {
  static constexpr bool tp_experts = Grain == worklets::ExpertGrain::tp;
  using Experts = std::conditional_t<tp_experts, worklets::MoeExpertTp<Form>, worklets::MoeExpertEp<Form>>;

 public:
  // dp = ep / tp attention groups (TP experts: one group, ep 1, every expert's intermediate
  // split tp ways, checked before any worklet is built); the layer pair is the repeated
  // unit, so num_layers is even.
  static constexpr auto resolve_config(const Form& form) {
    // One declaration per variable: each dim has its own type (its name is part of it).
    const auto tp = dim<"tp">(form);
    const auto ep = dim<"ep">(form);
    const auto layers = dim<"num_layers">(form);
    require_nonzero(tp), require_nonzero(ep), require_nonzero(layers), require_nonzero(dim<"sliding_window">(form));
    if (!decltype(layers)::is_static && layers.value() % 2 != 0)  // static: the division below fails to compile
      throw ConfigError("num_layers " + std::to_string(layers.value()) +
                        " is odd: GptOss repeats a (sliding-window, full attention) layer pair, so it must be even");
    const auto pairs = layers / sym<"layer_pair">(Static<2>{});
    using pairs_type = decltype(scale_count(pairs));
    struct Resolved { std::uint64_t tp, ep, dp; pairs_type layer_pairs; };
    if constexpr (tp_experts) {
      require_le<"TP-sharded experts run ep 1 (one attention group)">(ep, sym<"max_ep">(Static<1>{}));
      (void)(dim<"moe_intermediate">(form) / tp);
      return Resolved{tp.value(), ep.value(), 1, scale_count(pairs)};
    } else {
      return Resolved{tp.value(), ep.value(), (ep / tp).value(), scale_count(pairs)};
    }
  }
  using Resolved = decltype(resolve_config(std::declval<const Form&>()));

  explicit GptOss(const Form& form = {})
      : form_(form), r_(resolve_config(form)), embed_(form), sliding_(form, values(form).sliding_window),
        full_(form), router_(form), experts_(form), head_(form) {}

  auto build(const Timing& t) const {
    const auto& c = values(form_);
    const auto layer = [&](const auto& attn) {
      return dp_moe_layer(r_.dp, sum(attn.build(t), router_.build(t)), experts_.build(t));
    };
    return labeled<"model">(
        "model (GptOss) [tp=" + std::to_string(c.tp) + ", ep=" + std::to_string(c.ep) + ", dp=" +
            std::to_string(r_.dp) + ", layers=" + std::to_string(c.num_layers) + ", experts=" +
            std::to_string(c.num_experts) + ", top_k=" + std::to_string(c.top_k) + "]",
        dp_model(r_.dp, embed_.build(t),
                 labeled<"layer">(tp_experts ? "layer (a pair: sliding-window + full attention layer, TP attention, TP experts)"
                                             : "layer (a pair: sliding-window + full attention layer, DP attention, EP experts)",
                                  scale(r_.layer_pairs,
                                        sum(labeled<"sliding">("sliding (window " + std::to_string(c.sliding_window) +
                                                               " keys)", layer(sliding_)),
                                            labeled<"full">("full (whole context)", layer(full_))))),
                 head_.build(t)));
  }

  // As Qwen3Moe, once per layer of the pair; the sliding layer's decodes are capped at the window.
  auto inputs(const MoeIteration& it) const { return inputs_with(it, OwnedGroups{}); }
  auto inputs(const MoeIteration& it, InputScratch& scratch) const { return inputs_with(it, ScratchGroups(scratch)); }

  // KV bytes a token holds: the full-attention layers'. A sliding layer keeps only its last
  // `sliding_window` tokens (vLLM's hybrid KV cache manager; TensorRT-LLM's pool per window
  // size): under 1.5% of a 9k-token request's KV, left out of this per-token figure.
  double kv_bytes_per_token() const {
    const auto& c = values(form_);
    return 2.0 * c.num_kv_heads * c.head_dim * bytes_per_element(c.kv_dtype) * (c.num_layers / 2);
  }
  double kv_bytes_per_token_per_gpu() const { return kv_bytes_per_token() / values(form_).tp; }
  // Weights on one GPU: attention by tp, experts (at expert_dtype) by ep (TP experts: every
  // expert split tp ways), the rest replicated; no biases.
  double weight_bytes_per_gpu() const {
    const auto& c = values(form_);
    const double h = c.hidden, hd = c.head_dim, tp = c.tp;
    const double attn = h * (c.num_qo_heads + 2.0 * c.num_kv_heads) * hd / tp + (c.num_qo_heads * hd / tp) * h;
    const double experts = 3.0 * h * c.moe_intermediate * (double(c.num_experts) / (tp_experts ? c.tp : c.ep));
    const double rest = c.num_layers * (h * c.num_experts + 2 * h + c.num_qo_heads) + 2.0 * c.vocab * h + h;
    return bytes_per_element(worklets::gemm_weight_dtype(form_)) * c.num_layers * attn +
           bytes_per_element(c.dtype) * rest +
           bytes_per_element(c.expert_dtype) * c.num_layers * experts;
  }

  const Form& form() const noexcept { return form_; }
  const Resolved& resolved() const noexcept { return r_; }

 private:
  template <class Groups>
  auto inputs_with(const MoeIteration& it, Groups groups) const {
    const auto work = dp_work("GptOss", it, r_.dp, r_.tp, groups, ops::collapse);
    const auto& w = work.groups;
    const std::uint32_t window = values(form_).sliding_window;
    const auto layer = [&](const auto& attn, bool sliding) {
      const auto group = [&](std::size_t g) {
        const auto a = sliding ? ops::collapse_window(it.groups[g], window) : w[g].attention;
        // TP experts: every rank gates all of its group's rows
        const std::uint64_t rows = w[g].attention.append_tokens;
        return costdsl::inputs(attn.inputs({a.append_tokens, a}), router_.inputs({tp_experts ? rows : w[g].slice}));
      };
      return dp_moe_layer_inputs(groups, work, it.routing, experts_, group);
    };
    return nest<"model">(dp_model_inputs(
        groups, work, embed_,
        costdsl::inputs(nest<"sliding">(layer(sliding_, true)), nest<"full">(layer(full_, false))), head_));
  }

  Form form_;
  Resolved r_;
  worklets::EmbedLocal<Form> embed_;
  worklets::AttnBlockTp<Form> sliding_, full_;  // the same block; sliding_'s prefill has the window
  worklets::MoeRouterLocal<Form> router_;
  Experts experts_;
  worklets::LmHeadLocal<Form> head_;
};

#if defined(COSTDSL_SEPARATE_COMPILATION)
// The run-time form is instantiated once, in libcostdsl-compiled (src/archs/gpt_oss.cpp).
extern template class GptOss<GptOssConfig>;
extern template class GptOss<GptOssConfig, worklets::ExpertGrain::tp>;
#endif

}  // namespace costdsl::archs
