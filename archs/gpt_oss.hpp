#pragma once
// L4 gpt-oss (120b, 20b): the DP-attention + EP MoE frame (archs/frames/moe_stack.hpp) with
// no q/k norm, top-4, no shared expert, MXFP4 experts under bf16 activations, and layers
// alternating sliding-window (128 keys) and full attention: its layer pattern is the pair
// (sliding, full), so num_layers is even (static: a compile error on "layer_pair").
//   model = Sum(Max_dp(embed), pair × L/2, Max_dp(lm_head)), pair = Sum(sliding, full)
// Attention sinks (one learned logit per head in the softmax denominator) add one exp per
// query row and head, nothing next to the head_dim-wide dot products, so no kernel carries
// them; their weights count.
#include <cstddef>
#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "costdsl/archs/frames/moe_stack.hpp"
#include "costdsl/dtype.hpp"
#include "costdsl/error.hpp"
#include "costdsl/fixed_string.hpp"
#include "costdsl/hf_config.hpp"
#include "costdsl/hf_keys.hpp"
#include "costdsl/quantization.hpp"
#include "costdsl/worklets/attn_block_tp.hpp"
#include "costdsl/worklets/expert_grain.hpp"

namespace costdsl::archs {

struct GptOssLayer {
  // The family as --family names it and the config.json names it reads (`architectures`,
  // else `model_type`).
  static constexpr std::string_view family = "gpt_oss";
  static constexpr std::array<std::string_view, 1> architectures{"GptOssForCausalLM"};
  static constexpr std::array<std::string_view, 1> model_types{"gpt_oss"};
  static constexpr std::string_view name = "GptOss", unit = "a pair: sliding-window + full attention layer,";
  static constexpr ops::QkNorm qk_norm = ops::QkNorm::none;
  using pattern = LayerPattern<AttnSpan::sliding, AttnSpan::full>;
  // The published checkpoints' routed experts are MXFP4, the rest bf16 (quantization_config).
  static constexpr Quantization published_quantization{
      .gemm_dtype = Dtype::bf16, .expert_dtype = Dtype::mxfp4, .kv_dtype = Dtype::bf16};
  static constexpr FixedString period_name{"layer_pair"};
  static constexpr std::string_view period_rule = "a (sliding-window, full attention) layer pair, so it must be even";
  template <class C>
  static constexpr double extra_weights(const C& c) { return c.num_qo_heads; }  // one sink logit per head

  // The config.json rows it reads otherwise: KV heads required, the experts' keys, its window.
  static constexpr std::array hf_keys{hf_key("num_kv_heads", "num_key_value_heads"),
                                      hf_key("moe_intermediate", "intermediate_size"),
                                      hf_key("num_experts", "num_local_experts"),
                                      hf_key("sliding_window", "sliding_window")};

  // layer_types (absent: HF's default, the same) must alternate sliding and full, sliding
  // first; the quantization (mxfp4 experts as gpt-oss ships them) is the config's (HfConfig::quantization).
  template <class S>
  static S from_hf(const HfConfig& hf) {
    const std::uint32_t layers = hf.dim("num_hidden_layers");
    const HfConfig::Value* types = hf.find("layer_types");
    bool alternating = !hf.has("layer_types") || types->items.size() == layers;
    for (std::size_t i = 0; alternating && hf.has("layer_types") && i < layers; ++i)
      alternating = types->items[i].text == (i % 2 == 0 ? "sliding_attention" : "full_attention");
    if (!alternating)
      throw DataError(hf.file() + ": layer_types " + types->json + " is not " + std::to_string(layers) + " entries " +
                      "alternating sliding_attention, full_attention (sliding first): GptOss repeats that pair");
    return S::read_hf_keys(hf);
  }
};
using GptOssShape = MoeShape<GptOssLayer>;
using GptOssConfig = MoeConfig<GptOssLayer>;  // Deployed<GptOssShape>

template <class Form, worklets::ExpertGrain Grain = worklets::default_expert_grain<Form>>
using GptOss = MoeStack<Form, Grain>;

// Published shapes (data/models/gpt_oss_*.json are the source of truth; a test checks they agree).
inline constexpr GptOssShape gpt_oss_120b{
    .hidden = 2880, .num_qo_heads = 64, .num_kv_heads = 8, .head_dim = 64, .moe_intermediate = 2880,
    .num_experts = 128, .top_k = 4, .vocab = 201088, .num_layers = 36, .sliding_window = 128,
    .dtype = Dtype::bf16, .shared_intermediate = 0, .attention_chunk = 0};
inline constexpr GptOssShape gpt_oss_20b{
    .hidden = 2880, .num_qo_heads = 64, .num_kv_heads = 8, .head_dim = 64, .moe_intermediate = 2880,
    .num_experts = 32, .top_k = 4, .vocab = 201088, .num_layers = 24, .sliding_window = 128,
    .dtype = Dtype::bf16, .shared_intermediate = 0, .attention_chunk = 0};

#if defined(COSTDSL_SEPARATE_COMPILATION)
// The run-time forms are instantiated once, in libcostdsl-compiled (meson.build, frame_families).
COSTDSL_MOE_STACK_INSTANCES(extern, GptOssConfig);
#endif

}  // namespace costdsl::archs
