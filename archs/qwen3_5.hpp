#pragma once
// L4 Qwen3.5 (Qwen3.5-397B-A17B's language model): the DP-attention + EP MoE frame
// (archs/frames/moe_stack.hpp) whose token mixer is Gated DeltaNet linear attention on three
// layers of every four (worklets/gdn_block_tp.hpp: a recurrent state per request, no KV
// cache) and gated full attention on the fourth (per-head q/k norm; the q projection also
// yields a sigmoid gate on the attention output); every layer routes top-k of its experts
// beside a shared expert. Its layer pattern is the period (linear, linear, linear, full), so
// num_layers is a multiple of 4 (static: a compile error on "layer_quad").
//   model = Sum(Max_dp(embed), quad × L/4, Max_dp(lm_head)), quad = Sum(linear ×3, full)
// Not modelled: the multi-token-prediction layer (mtp_num_hidden_layers: a speculative
// decoding draft head, not run by plain decoding), RoPE on partial_rotary_factor of each
// head (costed over the whole head), and the shared expert's 1-wide sigmoid gate GEMM
// (0.03% of the shared expert's products; its weights are counted).
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
#include "costdsl/worklets/attn_block_tp.hpp"
#include "costdsl/worklets/expert_grain.hpp"
#include "costdsl/worklets/gdn_block_tp.hpp"

namespace costdsl::archs {

struct Qwen3_5Layer {
  // The family as --family names it and the config.json names it reads (`architectures`,
  // else `model_type`; the multimodal wrapper's text_config is the language model).
  static constexpr std::string_view family = "qwen3_5";
  static constexpr std::array<std::string_view, 2> architectures{"Qwen3_5MoeForConditionalGeneration",
                                                                 "Qwen3_5MoeForCausalLM"};
  static constexpr std::array<std::string_view, 2> model_types{"qwen3_5_moe", "qwen3_5_moe_text"};
  static constexpr std::string_view name = "Qwen3.5", unit = "a quad: 3 Gated DeltaNet layers + 1 full attention,";
  static constexpr ops::QkNorm qk_norm = ops::QkNorm::per_head;
  using pattern = LayerPattern<AttnSpan::linear, AttnSpan::linear, AttnSpan::linear, AttnSpan::full>;
  static constexpr FixedString period_name{"layer_quad"};
  static constexpr std::string_view period_rule =
      "3 linear-attention (Gated DeltaNet) layers then 1 full-attention one, so it must be a multiple of 4";
  static constexpr bool shared_expert = true, output_gate = true;
  // Per layer: the shared expert's sigmoid gate (hidden × 1); the q/k norms (head_dim each)
  // of the full layers, one in four.
  template <class C>
  static constexpr double extra_weights(const C& c) { return c.hidden + 2.0 * c.head_dim / 4; }

  // The period is read from layer_types where the file has it (each entry a known type, the
  // list the quad over every layer), else from full_attention_interval; every layer MoE.
  // The config.json rows it reads otherwise: its shared expert's width.
  static constexpr std::array hf_keys{hf_key("shared_intermediate", "shared_expert_intermediate_size")};
  template <class S>
  static S from_hf(const HfConfig& hf) {
    const std::uint32_t layers = hf.dim("num_hidden_layers");
    const auto reject = [&](std::string_view key, const std::string& value, std::string_view rule) {
      return DataError(hf.file() + ": " + std::string(key) + " " + value + " " + std::string(rule));
    };
    if (const HfConfig::Value* types = hf.find("layer_types"); types != nullptr) {
      if (types->items.size() != layers)
        throw reject("layer_types", "of " + std::to_string(types->items.size()) + " entries",
                     "is not one entry a layer (num_hidden_layers " + std::to_string(layers) + ")");
      for (std::size_t i = 0; i < layers; ++i) {
        const std::string& t = types->items[i].text;
        if (t != "linear_attention" && t != "full_attention")
          throw reject("layer_types", "entry " + std::to_string(i) + " " + types->items[i].json,
                       "is not a layer type the qwen3_5 family models (linear_attention, full_attention)");
        if (t != (i % 4 == 3 ? "full_attention" : "linear_attention"))
          throw reject("layer_types", "entry " + std::to_string(i) + " " + types->items[i].json,
                       "breaks the period: Qwen3.5 repeats 3 Gated DeltaNet layers (linear_attention) then 1 "
                       "full-attention layer (full_attention)");
      }
    }
    if (hf.dim("full_attention_interval", 4) != 4)
      throw reject("full_attention_interval", std::to_string(hf.dim("full_attention_interval")),
                   "is not 4: the qwen3_5 family models 3 Gated DeltaNet layers then 1 full-attention layer");
    if (hf.has("attn_output_gate") && hf.find("attn_output_gate")->json != "true")
      throw reject("attn_output_gate", hf.find("attn_output_gate")->json,
                   "is not true: the qwen3_5 family models gated full attention");
    if (const HfConfig::Value* dense = hf.find("mlp_only_layers"); dense != nullptr && !dense->items.empty())
      throw reject("mlp_only_layers", dense->json, "is not empty: the qwen3_5 family models every layer as MoE");
    if (hf.has("mamba_ssm_dtype") && hf.text("mamba_ssm_dtype") != "float32")
      throw reject("mamba_ssm_dtype", "'" + hf.text("mamba_ssm_dtype") + "'",
                   "is not float32: the gdn kinds and the KV budget hold fp32 recurrent states");
    S s = S::read_hf_keys(hf);
    s.linear = {hf.dim("linear_num_key_heads"), hf.dim("linear_key_head_dim"), hf.dim("linear_num_value_heads"),
                hf.dim("linear_value_head_dim"), hf.dim("linear_conv_kernel_dim")};
    return s;
  }
};
using Qwen3_5Shape = MoeShape<Qwen3_5Layer>;
using Qwen3_5Config = MoeConfig<Qwen3_5Layer>;  // Deployed<Qwen3_5Shape>

template <class Form, worklets::ExpertGrain Grain = worklets::default_expert_grain<Form>>
using Qwen3_5 = MoeStack<Form, Grain>;

// Published shape (data/models/qwen3_5_397b_a17b.json is the source of truth; a test checks they agree).
inline constexpr Qwen3_5Shape qwen3_5_397b_a17b{
    .hidden = 4096, .num_qo_heads = 32, .num_kv_heads = 2, .head_dim = 256, .moe_intermediate = 1024,
    .num_experts = 512, .top_k = 10, .vocab = 248320, .num_layers = 60, .sliding_window = 0,
    .dtype = Dtype::bf16, .shared_intermediate = 1024, .attention_chunk = 0,
    .linear = {.num_key_heads = 16, .key_head_dim = 128, .num_value_heads = 64, .value_head_dim = 128, .conv_kernel_dim = 4}};

#if defined(COSTDSL_SEPARATE_COMPILATION)
// The run-time forms are instantiated once, in libcostdsl-compiled (meson.build, frame_families).
COSTDSL_MOE_STACK_INSTANCES(extern, Qwen3_5Config);
#endif

}  // namespace costdsl::archs
