#pragma once
// L4 Mixtral (8x7B, 8x22B): the DP-attention + EP MoE frame (archs/frames/moe_stack.hpp)
// with Qwen3-MoE's layer less the q/k norm: 8 experts, top-2, no shared expert, every
// expert a full gated MLP. Experts EP-sharded (ep ∈ {1, 2, 4, 8}) or TP-sharded over one
// attention group (ExpertGrain::tp, ep 1).
#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "costdsl/archs/frames/moe_stack.hpp"
#include "costdsl/dtype.hpp"
#include "costdsl/error.hpp"
#include "costdsl/hf_config.hpp"
#include "costdsl/worklets/attn_block_tp.hpp"
#include "costdsl/worklets/expert_grain.hpp"

namespace costdsl::archs {

struct MixtralLayer {
  // The family as --family names it and the config.json names it reads (`architectures`,
  // else `model_type`).
  static constexpr std::string_view family = "mixtral";
  static constexpr std::array<std::string_view, 1> architectures{"MixtralForCausalLM"};
  static constexpr std::array<std::string_view, 1> model_types{"mixtral"};
  static constexpr std::string_view name = "Mixtral", unit = "decoder layer:";
  static constexpr ops::QkNorm qk_norm = ops::QkNorm::none;
  using pattern = LayerPattern<AttnSpan::full>;
  template <class C>
  static constexpr double extra_weights(const C&) { return 0; }

  // Every expert is a full gated MLP: HF calls its width intermediate_size.
  template <class S>
  static S from_hf(const HfConfig& hf) {
    const std::uint32_t hidden = hf.dim("hidden_size"), heads = hf.dim("num_attention_heads");
    if (!hf.has("head_dim") && hidden % heads != 0)
      throw DataError(hf.file() + ": num_attention_heads " + std::to_string(heads) + " does not divide hidden_size " +
                      std::to_string(hidden) + " and there is no head_dim");
    return {.hidden = hidden, .num_qo_heads = heads, .num_kv_heads = hf.dim("num_key_value_heads", heads),
            .head_dim = hf.dim("head_dim", hidden / heads), .moe_intermediate = hf.dim("intermediate_size"),
            .num_experts = hf.dim("num_local_experts"), .top_k = hf.dim("num_experts_per_tok"),
            .vocab = hf.dim("vocab_size"), .num_layers = hf.dim("num_hidden_layers"), .sliding_window = 0, .dtype = hf.dtype(),
            .shared_intermediate = 0, .attention_chunk = 0};
  }
};
using MixtralShape = MoeShape<MixtralLayer>;
using MixtralConfig = MoeConfig<MixtralLayer>;  // Deployed<MixtralShape>

template <class Form, worklets::ExpertGrain Grain = worklets::default_expert_grain<Form>>
using Mixtral = MoeStack<Form, Grain>;

// Published shapes (data/models/mixtral_*.json are the source of truth; a test checks they agree).
inline constexpr MixtralShape mixtral_8x7b{
    .hidden = 4096, .num_qo_heads = 32, .num_kv_heads = 8, .head_dim = 128, .moe_intermediate = 14336,
    .num_experts = 8, .top_k = 2, .vocab = 32000, .num_layers = 32, .sliding_window = 0,
    .dtype = Dtype::bf16,
    .shared_intermediate = 0, .attention_chunk = 0};
inline constexpr MixtralShape mixtral_8x22b{
    .hidden = 6144, .num_qo_heads = 48, .num_kv_heads = 8, .head_dim = 128, .moe_intermediate = 16384,
    .num_experts = 8, .top_k = 2, .vocab = 32768, .num_layers = 56, .sliding_window = 0,
    .dtype = Dtype::bf16,
    .shared_intermediate = 0, .attention_chunk = 0};

#if defined(COSTDSL_SEPARATE_COMPILATION)
// The run-time forms are instantiated once, in libcostdsl-compiled (meson.build, frame_families).
COSTDSL_MOE_STACK_INSTANCES(extern, MixtralConfig);
#endif

}  // namespace costdsl::archs
