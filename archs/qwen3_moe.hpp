#pragma once
// L4 Qwen3-MoE (30B-A3B, 235B-A22B): the DP-attention + EP MoE frame
// (archs/frames/moe_stack.hpp), every layer MoE with full attention and a per-head q/k norm,
// no shared expert. Qwen3Moe<Fixed<deploy(qwen3_235b_a22b, {.tp = 1, .ep = 8})>> is the static form,
// Qwen3Moe<Qwen3MoeConfig> the run-time one (Qwen3MoeConfig::from_hf); ep 1 over tp > 1 GPUs
// is the TP-experts grain.
#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "costdsl/archs/frames/moe_stack.hpp"
#include "costdsl/dtype.hpp"
#include "costdsl/error.hpp"
#include "costdsl/fixed_string.hpp"
#include "costdsl/hf_config.hpp"
#include "costdsl/worklets/attn_block_tp.hpp"
#include "costdsl/worklets/expert_grain.hpp"

namespace costdsl::archs {

struct Qwen3MoeLayer {
  // The family as --family names it and the config.json names it reads (`architectures`,
  // else `model_type`).
  static constexpr std::string_view family = "qwen3_moe";
  static constexpr std::array<std::string_view, 1> architectures{"Qwen3MoeForCausalLM"};
  static constexpr std::array<std::string_view, 1> model_types{"qwen3_moe"};
  static constexpr std::string_view name = "Qwen3Moe", unit = "decoder layer:";
  static constexpr ops::QkNorm qk_norm = ops::QkNorm::per_head;
  using pattern = LayerPattern<AttnSpan::full>;
  template <class C>
  static constexpr double extra_weights(const C& c) { return 2.0 * c.head_dim; }  // the q/k norm

  // The frame's table as it is: head_dim is required (transformers' Qwen3MoeConfig defaults
  // it to 128, not hidden / heads).
  template <class S>
  static S from_hf(const HfConfig& hf) {
    if (hf.dim("decoder_sparse_step", 1) != 1)
      throw DataError(hf.file() + ": decoder_sparse_step " + std::to_string(hf.dim("decoder_sparse_step")) +
                      " is not 1; Qwen3Moe models every layer as MoE");
    return S::read_hf_keys(hf);
  }
};
using Qwen3MoeShape = MoeShape<Qwen3MoeLayer>;
using Qwen3MoeConfig = MoeConfig<Qwen3MoeLayer>;  // Deployed<Qwen3MoeShape>

template <class Form, worklets::ExpertGrain Grain = worklets::default_expert_grain<Form>>
using Qwen3Moe = MoeStack<Form, Grain>;

// Published shapes (data/models/qwen3_*.json are the source of truth; a test checks they agree).
inline constexpr Qwen3MoeShape qwen3_30b_a3b{
    .hidden = 2048, .num_qo_heads = 32, .num_kv_heads = 4, .head_dim = 128, .moe_intermediate = 768,
    .num_experts = 128, .top_k = 8, .vocab = 151936, .num_layers = 48, .sliding_window = 0,
    .dtype = Dtype::bf16, .shared_intermediate = 0, .attention_chunk = 0};
inline constexpr Qwen3MoeShape qwen3_235b_a22b{
    .hidden = 4096, .num_qo_heads = 64, .num_kv_heads = 4, .head_dim = 128, .moe_intermediate = 1536,
    .num_experts = 128, .top_k = 8, .vocab = 151936, .num_layers = 94, .sliding_window = 0,
    .dtype = Dtype::bf16, .shared_intermediate = 0, .attention_chunk = 0};

#if defined(COSTDSL_SEPARATE_COMPILATION)
// The run-time forms are instantiated once, in libcostdsl-compiled (meson.build, frame_families).
COSTDSL_MOE_STACK_INSTANCES(extern, Qwen3MoeConfig);
#endif

}  // namespace costdsl::archs
