#pragma once
// L4 Qwen3 dense (8B, 32B): the dense frame (archs/frames/dense_stack.hpp) with Llama-3's
// layer plus a per-head RMSNorm on q and k between the QKV projection and the rotary
// embedding (the q_norm / k_norm leaves Qwen3-MoE has). head_dim is required in its
// config.json: transformers' Qwen3Config defaults it to 128, not hidden / heads.
#include <array>
#include <string_view>

#include "costdsl/archs/frames/dense_stack.hpp"
#include "costdsl/dtype.hpp"
#include "costdsl/hf_keys.hpp"
#include "costdsl/worklets/attn_grain.hpp"

namespace costdsl::archs {

struct Qwen3Layer {
  // The family as --family names it and the config.json names it reads (`architectures`,
  // else `model_type`).
  static constexpr std::string_view family = "qwen3";
  static constexpr std::array<std::string_view, 1> architectures{"Qwen3ForCausalLM"};
  static constexpr std::array<std::string_view, 1> model_types{"qwen3"};
  static constexpr std::string_view name = "Qwen3";
  static constexpr ops::QkNorm qk_norm = ops::QkNorm::per_head;
  static constexpr std::array hf_keys{hf_key("head_dim", "head_dim")};  // required: not hidden / heads
};
using Qwen3Shape = DenseShape<Qwen3Layer>;
using Qwen3Config = DenseConfig<Qwen3Layer>;  // Deployed<Qwen3Shape>

template <class Form, AttnGrain Grain = default_grain<Form>>
using Qwen3 = DenseStack<Form, Grain>;

// Published shapes (data/models/qwen3_8b.json, qwen3_32b.json are the source of truth; a test checks they agree).
inline constexpr Qwen3Shape qwen3_8b{
    .hidden = 4096, .num_qo_heads = 32, .num_kv_heads = 8, .head_dim = 128, .intermediate = 12288,
    .vocab = 151936, .num_layers = 36, .dtype = Dtype::bf16};
inline constexpr Qwen3Shape qwen3_32b{
    .hidden = 5120, .num_qo_heads = 64, .num_kv_heads = 8, .head_dim = 128, .intermediate = 25600,
    .vocab = 151936, .num_layers = 64, .dtype = Dtype::bf16};

#if defined(COSTDSL_SEPARATE_COMPILATION)
// The run-time forms are instantiated once, in libcostdsl-compiled (meson.build, frame_families).
COSTDSL_DENSE_STACK_INSTANCES(extern, Qwen3Config);
#endif

}  // namespace costdsl::archs
