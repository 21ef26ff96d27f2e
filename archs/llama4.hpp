#pragma once
// L4 Llama-4 (Scout): the DP-attention + EP MoE frame (archs/frames/moe_stack.hpp) whose
// layers hold a routed top-1 of 16 experts beside a shared expert of the same width, and
// whose attention is chunked local (chunks of attention_chunk_size tokens, with RoPE) on
// three layers of every four and global on the fourth (no RoPE): its layer pattern is the
// period (chunked, chunked, chunked, full), so num_layers is a multiple of 4 (static: a
// compile error on "layer_quad").
//   model = Sum(Max_dp(embed), quad × L/4, Max_dp(lm_head)), quad = Sum(chunked ×3, full)
// The q/k L2 norm of the RoPE layers (no weights) is costed as a per-head norm.
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

namespace costdsl::archs {

struct Llama4Layer {
  // The family as --family names it and the config.json names it reads (`architectures`,
  // else `model_type`; the multimodal wrapper's text_config is the language model).
  static constexpr std::string_view family = "llama4";
  static constexpr std::array<std::string_view, 2> architectures{"Llama4ForConditionalGeneration",
                                                                 "Llama4ForCausalLM"};
  static constexpr std::array<std::string_view, 2> model_types{"llama4", "llama4_text"};
  static constexpr std::string_view name = "Llama4", unit = "a quad: 3 chunked-attention layers + 1 global,";
  static constexpr ops::QkNorm qk_norm = ops::QkNorm::per_head;
  using pattern = LayerPattern<AttnSpan::chunked, AttnSpan::chunked, AttnSpan::chunked, AttnSpan::full>;
  static constexpr FixedString period_name{"layer_quad"};
  static constexpr std::string_view period_rule =
      "3 chunked-attention layers then 1 global one, so it must be a multiple of 4";
  static constexpr bool shared_expert = true;
  template <class C>
  static constexpr double extra_weights(const C&) { return 0; }  // the q/k L2 norm has no weights

  // Every layer MoE (interleave_moe_layer_step 1, Scout; Maverick's dense/MoE alternation
  // is named, not guessed); the routed and the shared expert both intermediate_size wide;
  // RoPE (and with it the chunk) off exactly on every fourth layer where no_rope_layers says.
  // The config.json rows it reads otherwise: the experts' keys, the shared expert as wide as
  // a routed one (intermediate_size), the chunk of its local layers.
  static constexpr std::array hf_keys{
      hf_key("moe_intermediate", "intermediate_size"), hf_key("num_experts", "num_local_experts"),
      hf_key("shared_intermediate", "intermediate_size"), hf_key("attention_chunk", "attention_chunk_size")};
  template <class S>
  static S from_hf(const HfConfig& hf) {
    if (hf.dim("interleave_moe_layer_step", 1) != 1)
      throw DataError(hf.file() + ": interleave_moe_layer_step " + std::to_string(hf.dim("interleave_moe_layer_step")) +
                      " is not 1; the llama4 family models every layer as MoE (Scout), not dense and MoE alternating");
    const std::uint32_t layers = hf.dim("num_hidden_layers");
    if (const HfConfig::Value* rope = hf.find("no_rope_layers"); rope != nullptr) {
      bool quads = rope->items.size() == layers;
      for (std::size_t i = 0; quads && i < layers; ++i) quads = rope->items[i].json == (i % 4 == 3 ? "0" : "1");
      if (!quads)
        throw DataError(hf.file() + ": no_rope_layers " + rope->json + " is not " + std::to_string(layers) +
                        " entries with RoPE off (0) on every fourth layer only: Llama4 repeats 3 chunked layers and "
                        "1 global");
    }
    return S::read_hf_keys(hf);
  }
};
using Llama4Shape = MoeShape<Llama4Layer>;
using Llama4Config = MoeConfig<Llama4Layer>;  // Deployed<Llama4Shape>

template <class Form, worklets::ExpertGrain Grain = worklets::default_expert_grain<Form>>
using Llama4 = MoeStack<Form, Grain>;

// Published shape (data/models/llama4_scout.json is the source of truth; a test checks they agree).
inline constexpr Llama4Shape llama4_scout{
    .hidden = 5120, .num_qo_heads = 40, .num_kv_heads = 8, .head_dim = 128, .moe_intermediate = 8192,
    .num_experts = 16, .top_k = 1, .vocab = 202048, .num_layers = 48, .sliding_window = 0, .dtype = Dtype::bf16,
    .shared_intermediate = 8192, .attention_chunk = 8192};

#if defined(COSTDSL_SEPARATE_COMPILATION)
// The run-time forms are instantiated once, in libcostdsl-compiled (meson.build, frame_families).
COSTDSL_MOE_STACK_INSTANCES(extern, Llama4Config);
#endif

}  // namespace costdsl::archs
