#pragma once
// The dense decoder frame (L4): Sum(embed, layer × L (attention block, MLP block), lm_head),
// tensor-parallel, that every dense family is an instance of. A family is a Layer tag (its
// name, its q/k norm, and in `hf_keys` the config.json rows it reads otherwise than the
// frame's table, if any) and DenseShape<Layer> its shape:
//
//   struct Llama3Layer { static constexpr std::string_view name = "Llama3";
//                        static constexpr ops::QkNorm qk_norm = ops::QkNorm::none; };
//   using Llama3Shape = DenseShape<Llama3Layer>;
//   using Llama3Config = DenseConfig<Llama3Layer>;   // Deployed<Llama3Shape>
//   template <class Form, AttnGrain G = default_grain<Form>> using Llama3 = DenseStack<Form, G>;
//
// The form's config type says which family the stack is. One definition, two forms:
// DenseStack<Fixed<deploy(shape, {.tp = 8})>> has compile-time dims and tp (tp 16 on 8 KV
// heads does not compile); DenseStack<DenseConfig<L>> takes them from a config.json at run
// time and throws a ConfigError instead.
//
// KV-parallel decode (hp > 1, the hptp grain): attention runs attn_block_hptp on
// N = hp × tp GPUs and the FFN runs mlp_block_tp over all N. The grain is part of the
// type, so that hp = 1 stays the tp tree: a static form picks it from its hp, a run-time
// form is tp unless built with AttnGrain::hptp. kv_replicate opts into tp above the KV
// heads by copying them (worklets/attn_grain.hpp).
#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <type_traits>

#include "costdsl/archs/support/input_scratch.hpp"
#include "costdsl/deployed.hpp"
#include "costdsl/dim_expr.hpp"
#include "costdsl/dtype.hpp"
#include "costdsl/error.hpp"
#include "costdsl/fields.hpp"
#include "costdsl/form.hpp"
#include "costdsl/hf_config.hpp"
#include "costdsl/hf_keys.hpp"
#include "costdsl/inputs.hpp"
#include "costdsl/labeled.hpp"
#include "costdsl/ops/attention/attention.hpp"
#include "costdsl/scale.hpp"
#include "costdsl/detail/inline.hpp"
#include "costdsl/sum.hpp"
#include "costdsl/timing.hpp"
#include "costdsl/ops/attention/kv_slices.hpp"
#include "costdsl/worklets/attn_block_hptp.hpp"
#include "costdsl/worklets/attn_block_tp.hpp"
#include "costdsl/worklets/attn_grain.hpp"
#include "costdsl/worklets/embed_tp.hpp"
#include "costdsl/worklets/lm_head_tp.hpp"
#include "costdsl/worklets/detail/weight_dtype.hpp"
#include "costdsl/worklets/mlp_block_tp.hpp"

namespace costdsl::archs {

// deploy(shape, parallelism) found by argument-dependent lookup beside the shapes.
using costdsl::deploy;

// One scheduler iteration: prefill chunks and decode requests.
using Iteration = ops::AttentionBatch;

using worklets::AttnGrain;
using worklets::default_grain;

// What a dense model is (its config.json's dims and activation dtype), apart from how it
// runs: DenseConfig<Layer> deploys it (costdsl/deployed.hpp) with a Parallelism (tp; hp > 1
// the KV-parallel grain; kv_replicate) and a Quantization.
template <class Layer>
struct DenseShape {
  using layer = Layer;

  COSTDSL_FIELDS((std::uint32_t, hidden), (std::uint32_t, num_qo_heads), (std::uint32_t, num_kv_heads),
                 (std::uint32_t, head_dim), (std::uint32_t, intermediate), (std::uint32_t, vocab),
                 (std::uint32_t, num_layers), (Dtype, dtype));

  // The config.json keys (hf_keys.hpp), as transformers' LlamaConfig reads them: head_dim
  // falls back to hidden / heads; a family's Layer::hf_keys overrides a row (Qwen3 requires
  // head_dim: 32B has 5120 / 64 = 80 and head_dim 128).
  static constexpr std::array hf_keys{hf_key("hidden", "hidden_size"), hf_key("num_qo_heads", "num_attention_heads"),
                                      hf_key("num_kv_heads", "num_key_value_heads").or_field("num_qo_heads"),
                                      hf_key("head_dim", "head_dim").or_ratio("hidden", "num_qo_heads"),
                                      hf_key("intermediate", "intermediate_size"), hf_key("vocab", "vocab_size"),
                                      hf_key("num_layers", "num_hidden_layers")};

  static DenseShape from_hf(const HfConfig& hf) { return read_hf_shape<DenseShape>(hf); }
};

template <class Layer>
using DenseConfig = Deployed<DenseShape<Layer>>;

template <class Form, AttnGrain Grain = default_grain<Form>>
class DenseStack {
  using Layer = typename std::remove_cvref_t<decltype(values(std::declval<const Form&>()))>::layer;
  static constexpr bool hptp = Grain == AttnGrain::hptp;
  using AttnForm = decltype(worklets::attention_form(std::declval<const Form&>()));
  using FfnForm = decltype(worklets::ffn_form<Grain>(std::declval<const Form&>()));
  using Attn = std::conditional_t<hptp, worklets::AttnBlockHptp<AttnForm, "attn", Layer::qk_norm>,
                                  worklets::AttnBlockTp<AttnForm, "attn", Layer::qk_norm>>;

 public:
  explicit DenseStack(const Form& form = {})
      : form_(form),
        attn_(worklets::attention_form(form)),
        embed_(worklets::ffn_form<Grain>(form)),
        mlp_(worklets::ffn_form<Grain>(form)),
        head_(worklets::ffn_form<Grain>(form)) {
    require_nonzero(dim<"num_layers">(form));
    // One Parallelism serves every frame: a dense model has no experts to place.
    require_le<"a dense model has no experts to split (ep 1)">(dim<"ep">(form), sym<"max_ep">(Static<1>{}));
    require_le<"a dense model has no experts to split (moe_tp 1)">(dim<"moe_tp">(form), sym<"max_moe_tp">(Static<1>{}));
  }

  auto build(const Timing& t) const {
    const auto& c = values(form_);
    return labeled<"model">(
        "model (" + std::string(Layer::name) + ") [" + (hptp ? "hp=" + std::to_string(c.hp) + ", " : std::string()) +
            "tp=" + std::to_string(c.tp) + ", layers=" + std::to_string(c.num_layers) +
            ", hidden=" + std::to_string(c.hidden) + "]",
        sum(embed_.build(t),
            labeled<"layer">("layer (decoder layer)",
                             scale(dim<"num_layers">(form_), sum(attn_.build(t), mlp_.build(t)))),
            head_.build(t)));
  }

  // Mixed prefill + decode iterations share one projection spine: every new
  // token (prefill append or decode) is one row through the same GEMMs.
  // inputs(it) is self-contained (under hptp each rank-folded slot deals the KV itself, and
  // the inputs own the batch they read); inputs(it, scratch) deals it once, for both, and
  // writes the batch into the scratch, which the inputs borrow until it is used again:
  // nothing allocated once warm (archs::BatchFeed passes one).
  auto inputs(const Iteration& it) const { return inputs_with(it, std::span<ops::KvSlices::RankLoad>{}, nullptr); }
  auto inputs(const Iteration& it, InputScratch& scratch) const
    requires hptp
  {
    scratch.reset();
    const std::span<ops::KvSlices::RankLoad> loads = scratch.take<ops::KvSlices::RankLoad>(values(form_).hp);
    return inputs_with(it, loads, scratch.take<ops::KvSlices>(1).data());
  }

  // KV cache bytes one token occupies across the whole model (each KV head once), and on
  // one GPU: a token's KV lives on one hp rank, split over its tp ranks' (replicated) heads.
  double kv_bytes_per_token() const { return worklets::kv_bytes_per_token(form_, values(form_).num_kv_heads); }
  double kv_bytes_per_token_per_gpu() const { return worklets::kv_bytes_per_token_per_gpu(form_); }

  // Weight bytes resident on one GPU: the sharded layers (projections in their weight
  // format) plus the embed and (untied) lm_head, vocabulary-parallel.
  // QKV is split tp ways (replicated over hp; replicated KV heads counted per copy),
  // o_proj, the FFN, the embed and the lm_head over all hp × tp GPUs.
  double weight_bytes_per_gpu() const {
    const auto& c = values(form_);
    const double h = c.hidden, hd = c.head_dim, tp = c.tp, n = tp * c.hp, kv = worklets::stored_kv_heads(form_);
    const double attn = h * (c.num_qo_heads + 2.0 * kv) * hd / tp + (c.num_qo_heads * hd / n) * h;
    const double mlp = 3.0 * h * c.intermediate / n;
    // norms (and the q/k norm's head_dim weights), embedding and lm_head in the activations' dtype
    const double norms = 2 * h + (Layer::qk_norm == ops::QkNorm::per_head ? 2 * hd : 0.0);
    const double vocab_rows = double(worklets::detail::vocab_rows_per_rank(c.vocab, c.tp * c.hp));
    return bytes_per_element(worklets::gemm_weight_dtype(form_)) * c.num_layers * (attn + mlp) +
           bytes_per_element(c.dtype) * (c.num_layers * norms + 2.0 * vocab_rows * h + h);
  }

  const Form& form() const noexcept { return form_; }

 private:
  COSTDSL_INLINE auto inputs_with(const Iteration& it, std::span<ops::KvSlices::RankLoad> loads,
                                   ops::KvSlices* slices) const {
    const ops::AttentionWork w = ops::collapse(it);
    const std::uint64_t tokens = w.append_tokens;
    const std::uint64_t requests = it.prefill.size() + w.decode_count;
    return nest<"model">(costdsl::inputs(
        embed_.inputs({tokens}),
        nest<"layer">(costdsl::inputs(worklets::attention_inputs<Grain>(attn_, tokens, w, it, loads, slices),
                                      mlp_.inputs({tokens}))),
        head_.inputs({requests})));
  }

  Form form_;
  // The attention block first: its head checks are the first error a bad degree meets.
  Attn attn_;
  worklets::EmbedTp<FfnForm> embed_;
  worklets::MlpBlockTp<FfnForm> mlp_;
  worklets::LmHeadTp<FfnForm> head_;
};

}  // namespace costdsl::archs

// The run-time forms of one dense family (both grains), declared `extern` beside its config
// under COSTDSL_SEPARATE_COMPILATION and defined (prefix empty) once in libcostdsl-compiled,
// from the meson line that lists the family (meson.build, frame_families).
#define COSTDSL_DENSE_STACK_INSTANCES(prefix, Config)             \
  prefix template class ::costdsl::archs::DenseStack<Config>; \
  prefix template class ::costdsl::archs::DenseStack<Config, ::costdsl::worklets::AttnGrain::hptp>
