#pragma once
// L4 MiniMax-M2 (MiniMax-M2.5: 229B, 256 experts top-8): the DP-attention + EP MoE frame
// (archs/frames/moe_stack.hpp), every layer MoE with GQA attention, no shared expert, and
// its own q/k norm: one RMSNorm over each token's whole q (and k) projection
// (qk_norm_type "per_layer"), whose mean of squares a TP group all-reduces before it
// normalizes (QkNorm::per_layer: one 2-fp32-per-token all-reduce per layer at tp > 1).
// RoPE on rotary_dim of head_dim is costed as full RoPE, and the sigmoid router with its
// correction bias as the softmax one (leaves of a few µs beside the GEMMs and the experts).
#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "costdsl/archs/frames/moe_stack.hpp"
#include "costdsl/dtype.hpp"
#include "costdsl/error.hpp"
#include "costdsl/hf_config.hpp"
#include "costdsl/hf_keys.hpp"
#include "costdsl/quantization.hpp"
#include "costdsl/worklets/attn_block_tp.hpp"
#include "costdsl/worklets/expert_grain.hpp"

namespace costdsl::archs {

struct MiniMaxM2Layer {
  // The family as --family names it and the config.json names it reads (`architectures`,
  // else `model_type`).
  static constexpr std::string_view family = "minimax_m2";
  static constexpr std::array<std::string_view, 1> architectures{"MiniMaxM2ForCausalLM"};
  static constexpr std::array<std::string_view, 1> model_types{"minimax_m2"};
  static constexpr std::string_view name = "MiniMaxM2", unit = "decoder layer:";
  static constexpr ops::QkNorm qk_norm = ops::QkNorm::per_layer;
  using pattern = LayerPattern<AttnSpan::full>;
  // The published checkpoint's projections and experts are fp8 with 128×128 block scales.
  static constexpr Quantization published_quantization{
      .gemm_dtype = Dtype::fp8_block, .expert_dtype = Dtype::fp8_block, .kv_dtype = Dtype::bf16};
  template <class C>
  static constexpr double extra_weights(const C& c) {  // the q and k norms' weights
    return (double(c.num_qo_heads) + c.num_kv_heads) * c.head_dim;
  }

  // Experts are num_local_experts of intermediate_size; what this layer does not model is
  // named: a shared expert, a q/k norm off or of another type.
  // The config.json rows it reads otherwise: the experts' keys.
  static constexpr std::array hf_keys{hf_key("moe_intermediate", "intermediate_size"),
                                      hf_key("num_experts", "num_local_experts")};
  template <class S>
  static S from_hf(const HfConfig& hf) {
    if (hf.has("shared_intermediate_size") && hf.find("shared_intermediate_size")->json != "0")
      throw DataError(hf.file() + ": shared_intermediate_size " + hf.find("shared_intermediate_size")->json +
                      " is not 0; a shared expert is not modelled in the minimax_m2 family");
    if (hf.has("use_qk_norm") && hf.find("use_qk_norm")->json != "true")
      throw DataError(hf.file() + ": use_qk_norm " + hf.find("use_qk_norm")->json +
                      " is not true; the minimax_m2 family models its per-layer q/k norm");
    if (hf.has("qk_norm_type") && hf.text("qk_norm_type") != "per_layer")
      throw DataError(hf.file() + ": qk_norm_type '" + hf.text("qk_norm_type") +
                      "' is not 'per_layer'; the minimax_m2 family models the norm over the whole projection");
    return S::read_hf_keys(hf);
  }
};
using MiniMaxM2Shape = MoeShape<MiniMaxM2Layer>;
using MiniMaxM2Config = MoeConfig<MiniMaxM2Layer>;  // Deployed<MiniMaxM2Shape>

template <class Form, worklets::ExpertGrain Grain = worklets::default_expert_grain<Form>>
using MiniMaxM2 = MoeStack<Form, Grain>;

// Published shape (data/models/minimax_m2_5.json is the source of truth; a test checks they agree).
inline constexpr MiniMaxM2Shape minimax_m2_5{
    .hidden = 3072, .num_qo_heads = 48, .num_kv_heads = 8, .head_dim = 128, .moe_intermediate = 1536,
    .num_experts = 256, .top_k = 8, .vocab = 200064, .num_layers = 62, .sliding_window = 0,
    .dtype = Dtype::bf16, .shared_intermediate = 0, .attention_chunk = 0};

#if defined(COSTDSL_SEPARATE_COMPILATION)
// The run-time forms are instantiated once, in libcostdsl-compiled (meson.build, frame_families).
COSTDSL_MOE_STACK_INSTANCES(extern, MiniMaxM2Config);
#endif

}  // namespace costdsl::archs
