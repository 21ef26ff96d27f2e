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
#include "costdsl/hf_keys.hpp"
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

  // Every expert is a full gated MLP: HF calls its width intermediate_size; head_dim falls
  // back to hidden / heads (transformers' MixtralConfig).
  static constexpr std::array hf_keys{hf_key("head_dim", "head_dim").or_ratio("hidden", "num_qo_heads"),
                                      hf_key("moe_intermediate", "intermediate_size"),
                                      hf_key("num_experts", "num_local_experts")};
};
using MixtralShape = MoeShape<MixtralLayer>;
using MixtralConfig = MoeConfig<MixtralLayer>;  // Deployed<MixtralShape>

template <class Form, worklets::ExpertGrain Grain = worklets::default_expert_grain<Form>>
using Mixtral = MoeStack<Form, Grain>;

// Published shapes (data/models/mixtral_*.json are the source of truth; a test checks they agree).
inline constexpr MixtralShape mixtral_8x7b{
    .hidden = 4096, .num_qo_heads = 32, .num_kv_heads = 8, .head_dim = 128, .moe_intermediate = 14336,
    .num_experts = 8, .top_k = 2, .vocab = 32000, .num_layers = 32, .sliding_window = 0, .dtype = Dtype::bf16,
    .shared_intermediate = 0, .attention_chunk = 0};
inline constexpr MixtralShape mixtral_8x22b{
    .hidden = 6144, .num_qo_heads = 48, .num_kv_heads = 8, .head_dim = 128, .moe_intermediate = 16384,
    .num_experts = 8, .top_k = 2, .vocab = 32768, .num_layers = 56, .sliding_window = 0, .dtype = Dtype::bf16,
    .shared_intermediate = 0, .attention_chunk = 0};

#if defined(COSTDSL_SEPARATE_COMPILATION)
// The run-time forms are instantiated once, in libcostdsl-compiled (meson.build, frame_families).
COSTDSL_MOE_STACK_INSTANCES(extern, MixtralConfig);
#endif

}  // namespace costdsl::archs
