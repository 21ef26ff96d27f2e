#pragma once
// L4 Llama-4: the DP-attention + EP MoE frame (archs/frames/moe_stack.hpp), MoE layers of a
// routed top-1 expert beside a shared expert as wide, attention chunked (chunks of
// attention_chunk_size tokens, RoPE) on three layers of four and global on the fourth: the
// pattern (chunked, chunked, chunked, full), so num_layers is a multiple of 4 (static: a
// compile error on "layer_quad"). Scout: every layer MoE, a q/k L2 norm (no weights, costed
// per head); Maverick (interleave_moe_layer_step 2): a dense MLP intermediate_size_mlp wide
// on the even layers, no q/k norm. The step in a config.json picks the family (family.cpp).
//   Scout:    quad = Sum(chunked ×3, full)
//   Maverick: quad = Sum(chunked_dense ×2, chunked, full)   (layers 0, 2 dense; 1, 3 MoE)
#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <tuple>

#include "costdsl/archs/frames/moe_stack.hpp"
#include "costdsl/dtype.hpp"
#include "costdsl/error.hpp"
#include "costdsl/fixed_string.hpp"
#include "costdsl/hf_config.hpp"
#include "costdsl/hf_keys.hpp"
#include "costdsl/worklets/attn_block_tp.hpp"
#include "costdsl/worklets/expert_grain.hpp"

namespace costdsl::archs {

// What Scout and Maverick (Layer) share: config.json names (a multimodal wrapper's
// text_config is the language model), quad, shared expert, rules against Layer's step and norm.
template <class Layer>
struct Llama4Quad {
  static constexpr std::array<std::string_view, 2> architectures{"Llama4ForConditionalGeneration",
                                                                 "Llama4ForCausalLM"};
  static constexpr std::array<std::string_view, 2> model_types{"llama4", "llama4_text"};
  using pattern = LayerPattern<AttnSpan::chunked, AttnSpan::chunked, AttnSpan::chunked, AttnSpan::full>;
  static constexpr FixedString period_name{"layer_quad"};
  static constexpr bool shared_expert = true;
  template <class C>
  static constexpr double extra_weights(const C&) { return 0; }  // the q/k L2 norm has no weights
  // The experts' keys, the shared expert as wide as a routed one, the chunk.
  static constexpr std::array quad_keys{
      hf_key("moe_intermediate", "intermediate_size"), hf_key("num_experts", "num_local_experts"),
      hf_key("shared_intermediate", "intermediate_size"), hf_key("attention_chunk", "attention_chunk_size")};
  // The MoE step the config.json names (1 where it names none), and whether it is Layer's.
  static std::uint32_t moe_step(const HfConfig& hf) { return hf.dim("interleave_moe_layer_step", 1); }
  static bool reads(const HfConfig& hf) { return moe_step(hf) == Layer::moe_layer_step; }
  // The tag's step and q/k norm; RoPE (with it the chunk) off on every fourth layer only.
  template <class S>
  static S from_hf(const HfConfig& hf) {
    if (moe_step(hf) != Layer::moe_layer_step)
      throw DataError(hf.file() + ": interleave_moe_layer_step " + std::to_string(moe_step(hf)) + " is not " +
                      std::to_string(Layer::moe_layer_step) + " (" + std::string(Layer::family) +
                      "); the llama4 families read 1 (llama4: every layer MoE, Scout) and 2 (llama4_maverick: "
                      "dense and MoE layers alternating, Maverick)");
    const bool norm = Layer::qk_norm != ops::QkNorm::none;
    if (const HfConfig::Value* v = hf.find("use_qk_norm"); v != nullptr && v->json != (norm ? "true" : "false"))
      throw DataError(hf.file() + ": use_qk_norm " + v->json + " is not " + (norm ? "true" : "false") + "; the " +
                      std::string(Layer::family) + " family models " + (norm ? "a" : "no") + " q/k L2 norm");
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

// Scout: every layer MoE (interleave_moe_layer_step 1).
struct Llama4Layer : Llama4Quad<Llama4Layer> {
  static constexpr std::string_view family = "llama4";
  static constexpr std::string_view name = "Llama4", unit = "a quad: 3 chunked-attention layers + 1 global,";
  static constexpr ops::QkNorm qk_norm = ops::QkNorm::per_head;
  static constexpr std::uint32_t moe_layer_step = 1;
  static constexpr std::string_view period_rule =
      "3 chunked-attention layers then 1 global one, so it must be a multiple of 4";
  static constexpr auto hf_keys = quad_keys;
};

// Maverick: MoE on the odd layers, a dense MLP intermediate_size_mlp wide on the even ones.
struct Llama4MaverickLayer : Llama4Quad<Llama4MaverickLayer> {
  static constexpr std::string_view family = "llama4_maverick";
  static constexpr std::string_view name = "Llama4Maverick",
                                    unit = "a quad: 3 chunked-attention layers + 1 global, dense and MoE alternating,";
  static constexpr ops::QkNorm qk_norm = ops::QkNorm::none;
  static constexpr std::uint32_t moe_layer_step = 2;
  static constexpr std::string_view period_rule =
      "3 chunked-attention layers then 1 global one, dense and MoE alternating, so it must be a multiple of 4";
  static constexpr auto hf_keys = std::apply(
      [](auto... k) { return std::array{k..., hf_key("intermediate", "intermediate_size_mlp")}; }, quad_keys);
};

using Llama4Shape = MoeShape<Llama4Layer>;
using Llama4Config = MoeConfig<Llama4Layer>;  // Deployed<Llama4Shape>
using Llama4MaverickShape = MoeShape<Llama4MaverickLayer>;
using Llama4MaverickConfig = MoeConfig<Llama4MaverickLayer>;

template <class Form, worklets::ExpertGrain Grain = worklets::default_expert_grain<Form>>
using Llama4 = MoeStack<Form, Grain>;

// Published shapes (data/models/llama4_scout.json, llama4_maverick.json; a test checks them).
inline constexpr Llama4Shape llama4_scout{
    .hidden = 5120, .num_qo_heads = 40, .num_kv_heads = 8, .head_dim = 128, .moe_intermediate = 8192,
    .num_experts = 16, .top_k = 1, .vocab = 202048, .num_layers = 48, .sliding_window = 0, .dtype = Dtype::bf16,
    .shared_intermediate = 8192, .attention_chunk = 8192};
inline constexpr Llama4MaverickShape llama4_maverick{
    .hidden = 5120, .num_qo_heads = 40, .num_kv_heads = 8, .head_dim = 128, .moe_intermediate = 8192,
    .num_experts = 128, .top_k = 1, .vocab = 202048, .num_layers = 48, .sliding_window = 0, .dtype = Dtype::bf16,
    .shared_intermediate = 8192, .attention_chunk = 8192, .intermediate = 16384};

#if defined(COSTDSL_SEPARATE_COMPILATION)
// The run-time forms are instantiated once, in libcostdsl-compiled (meson.build, frame_families).
COSTDSL_MOE_STACK_INSTANCES(extern, Llama4Config);
COSTDSL_MOE_STACK_INSTANCES(extern, Llama4MaverickConfig);
#endif

}  // namespace costdsl::archs
