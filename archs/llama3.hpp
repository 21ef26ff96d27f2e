#pragma once
// L4 Llama-3 (dense, TP): the dense frame (archs/frames/dense_stack.hpp) with plain
// attention. Llama3<Fixed<deploy(llama3_70b, {.tp = 8})>> is the static form (tp 16 on 8 KV heads
// does not compile), Llama3<Llama3Config> the run-time one (Llama3Config::from_hf reads a
// config.json; head_dim defaults to hidden / heads); hp > 1 is the KV-parallel grain.
#include <array>
#include <string_view>

#include "costdsl/archs/frames/dense_stack.hpp"
#include "costdsl/dtype.hpp"
#include "costdsl/worklets/attn_grain.hpp"

namespace costdsl::archs {

struct Llama3Layer {
  // The family as --family names it and the config.json `architectures` (else `model_type`)
  // names it reads: Mistral and Qwen2 read as Llama, the same dense layer (Qwen2's q/k/v
  // bias and Mistral-7B-v0.1's sliding window are not modelled).
  static constexpr std::string_view family = "llama";
  static constexpr std::array<std::string_view, 3> architectures{"LlamaForCausalLM", "MistralForCausalLM",
                                                                 "Qwen2ForCausalLM"};
  static constexpr std::array<std::string_view, 3> model_types{"llama", "mistral", "qwen2"};
  static constexpr std::string_view name = "Llama3";
  static constexpr ops::QkNorm qk_norm = ops::QkNorm::none;
};
using Llama3Shape = DenseShape<Llama3Layer>;
using Llama3Config = DenseConfig<Llama3Layer>;  // Deployed<Llama3Shape>

template <class Form, AttnGrain Grain = default_grain<Form>>
using Llama3 = DenseStack<Form, Grain>;

// Published shapes (data/models/*.json are the source of truth; a test checks they agree).
inline constexpr Llama3Shape llama3_8b{
    .hidden = 4096, .num_qo_heads = 32, .num_kv_heads = 8, .head_dim = 128, .intermediate = 14336,
    .vocab = 128256, .num_layers = 32, .dtype = Dtype::bf16};
inline constexpr Llama3Shape llama3_70b{
    .hidden = 8192, .num_qo_heads = 64, .num_kv_heads = 8, .head_dim = 128, .intermediate = 28672,
    .vocab = 128256, .num_layers = 80, .dtype = Dtype::bf16};
inline constexpr Llama3Shape llama3_405b{
    .hidden = 16384, .num_qo_heads = 128, .num_kv_heads = 8, .head_dim = 128, .intermediate = 53248,
    .vocab = 128256, .num_layers = 126, .dtype = Dtype::bf16};

#if defined(COSTDSL_SEPARATE_COMPILATION)
// The run-time forms are instantiated once, in libcostdsl-compiled (meson.build, frame_families).
COSTDSL_DENSE_STACK_INSTANCES(extern, Llama3Config);
#endif

}  // namespace costdsl::archs
