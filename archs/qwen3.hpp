#pragma once
// L4 Qwen3 dense (8B, 32B): Llama-3's layer with a per-head RMSNorm on q and k between
// the QKV projection and the rotary embedding (the q_norm / k_norm leaves Qwen3-MoE has).
//
//   model = Sum(embed, layer × L (attn_block_tp with q/k norm, mlp_block_tp), lm_head)
//
// One definition, two forms: Qwen3<Fixed<cfg>> has compile-time dims and tp (tp 16 on
// 8 KV heads does not compile); Qwen3<Qwen3Config> takes them from a config.json at
// run time and throws a ConfigError instead.
#include <cstdint>
#include <string>

#include <boost/hana/define_struct.hpp>

#include "costdsl/dim_expr.hpp"
#include "costdsl/dtype.hpp"
#include "costdsl/form.hpp"
#include "costdsl/hf_config.hpp"
#include "costdsl/inputs.hpp"
#include "costdsl/labeled.hpp"
#include "costdsl/ops/attention/attention.hpp"
#include "costdsl/scale.hpp"
#include "costdsl/sum.hpp"
#include "costdsl/timing.hpp"
#include "costdsl/worklets/attn_block_tp.hpp"
#include "costdsl/worklets/embed_local.hpp"
#include "costdsl/worklets/lm_head_local.hpp"
#include "costdsl/worklets/mlp_block_tp.hpp"

namespace costdsl::archs {

struct Qwen3Config {
  BOOST_HANA_DEFINE_STRUCT(Qwen3Config, (std::uint32_t, hidden), (std::uint32_t, num_qo_heads),
                           (std::uint32_t, num_kv_heads), (std::uint32_t, head_dim), (std::uint32_t, intermediate),
                           (std::uint32_t, vocab), (std::uint32_t, num_layers), (std::uint32_t, tp), (Dtype, dtype),
                           (Dtype, kv_dtype));

  constexpr Qwen3Config with_tp(std::uint32_t degree) const {
    Qwen3Config c = *this;
    c.tp = degree;
    return c;
  }

  // head_dim is required: Qwen3 decouples it from hidden / heads (32B: 5120 / 64 = 80, head_dim 128).
  static Qwen3Config from_hf(const HfConfig& hf, std::uint32_t tp) {
    const std::uint32_t heads = hf.dim("num_attention_heads");
    return {hf.dim("hidden_size"),
            heads,
            hf.dim("num_key_value_heads", heads),
            hf.dim("head_dim"),
            hf.dim("intermediate_size"),
            hf.dim("vocab_size"),
            hf.dim("num_hidden_layers"),
            tp,
            hf.dtype(),
            hf.dtype()};
  }
};

// Published shapes (data/models/qwen3_8b.json, qwen3_32b.json are the source of truth; a test checks they agree).
inline constexpr Qwen3Config qwen3_8b{4096, 32, 8, 128, 12288, 151936, 36, 1, Dtype::bf16, Dtype::bf16};
inline constexpr Qwen3Config qwen3_32b{5120, 64, 8, 128, 25600, 151936, 64, 1, Dtype::bf16, Dtype::bf16};

template <class Form>
class Qwen3 {
 public:
  explicit Qwen3(const Form& form = {}) : form_(form), embed_(form), attn_(form), mlp_(form), head_(form) {
    require_nonzero(dim<"num_layers">(form));
  }

  auto build(const Timing& t) const {
    const auto& c = values(form_);
    const auto layers = dim<"num_layers">(form_);
    return labeled<"model">(
        "model (Qwen3) [tp=" + std::to_string(c.tp) + ", layers=" + std::to_string(c.num_layers) +
            ", hidden=" + std::to_string(c.hidden) + "]",
        sum(embed_.build(t),
            labeled<"layer">("layer (decoder layer)", scale(layers.v, sum(attn_.build(t), mlp_.build(t)))),
            head_.build(t)));
  }

  // Mixed prefill + decode iterations share one projection spine (as in Llama3).
  auto inputs(const ops::AttentionBatch& it) const {
    const ops::AttentionWork w = ops::collapse(it);
    const std::uint64_t tokens = w.append_tokens;
    const std::uint64_t requests = it.prefill.size() + w.decode_count;
    return nest<"model">(costdsl::inputs(
        embed_.inputs({tokens}), nest<"layer">(costdsl::inputs(attn_.inputs({tokens, w}), mlp_.inputs({tokens}))),
        head_.inputs({requests})));
  }

  // KV cache bytes one token occupies across the whole model (all ranks), and on one GPU.
  double kv_bytes_per_token() const {
    const auto& c = values(form_);
    return 2.0 * c.num_kv_heads * c.head_dim * bytes_per_element(c.kv_dtype) * c.num_layers;
  }
  double kv_bytes_per_token_per_gpu() const { return kv_bytes_per_token() / values(form_).tp; }

  // Weight bytes on one GPU: the sharded layers plus the local embed and (untied) lm_head.
  double weight_bytes_per_gpu() const {
    const auto& c = values(form_);
    const double h = c.hidden, hd = c.head_dim, tp = c.tp;
    const double attn = h * (c.num_qo_heads + 2.0 * c.num_kv_heads) * hd / tp + (c.num_qo_heads * hd / tp) * h;
    const double mlp = 3.0 * h * c.intermediate / tp;
    const double per_layer = attn + mlp + 2 * h + 2 * hd;  // + norms (incl. q/k norm)
    return bytes_per_element(c.dtype) * (c.num_layers * per_layer + 2.0 * c.vocab * h + h);
  }

  const Form& form() const noexcept { return form_; }

 private:
  Form form_;
  worklets::EmbedLocal<Form> embed_;
  worklets::AttnBlockTp<Form, "attn", worklets::QkNorm::per_head> attn_;
  worklets::MlpBlockTp<Form> mlp_;
  worklets::LmHeadLocal<Form> head_;
};

#if defined(COSTDSL_SEPARATE_COMPILATION)
// The run-time form is instantiated once, in libcostdsl-compiled (src/archs/qwen3.cpp).
extern template class Qwen3<Qwen3Config>;
#endif

}  // namespace costdsl::archs
