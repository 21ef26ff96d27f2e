#pragma once
// L4 DeepSeek-V3 (and R1, V3.1; Kimi-K2 under its own model_type): the dense-then-MoE MLA
// frame (archs/frames/mla_moe_stack.hpp): first_k_dense_replace dense layers, then MoE
// layers of n_routed_experts top-k with n_shared_experts run as one wider shared expert.
// DeepseekV3<Fixed<deploy(deepseek_v3, {.tp = 8, .ep = 8})>> is the static form,
// DeepseekV3<DeepseekV3Config> the run-time one; hp > 1 the MLA KV-parallel grain, ep 1 over
// tp > 1 GPUs TP experts.
#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "costdsl/archs/frames/mla_moe_stack.hpp"
#include "costdsl/dtype.hpp"
#include "costdsl/error.hpp"
#include "costdsl/hf_config.hpp"
#include "costdsl/worklets/attn_grain.hpp"
#include "costdsl/worklets/expert_grain.hpp"

namespace costdsl::archs {

struct DeepseekV3Layer {
  // The family as --family names it and the config.json names it reads (`architectures`,
  // else `model_type`): Kimi-K2 is DeepSeek-V3's architecture.
  static constexpr std::string_view family = "deepseek_v3";
  static constexpr std::array<std::string_view, 1> architectures{"DeepseekV3ForCausalLM"};
  static constexpr std::array<std::string_view, 2> model_types{"deepseek_v3", "kimi_k2"};
  static constexpr std::string_view name = "DeepseekV3";

  // `who`: the arch reading the config (a family built on this frame names itself).
  template <class S>
  static S from_hf(const HfConfig& hf, std::string_view who = name) {
    if (hf.dim("moe_layer_freq", 1) != 1)
      throw DataError(hf.file() + ": moe_layer_freq " + std::to_string(hf.dim("moe_layer_freq")) + " is not 1; " +
                      std::string(who) + " models every layer after first_k_dense_replace as MoE");
    S s = S::read_hf_keys(hf);
    const std::uint32_t moe_intermediate = s.moe_intermediate, shared = hf.dim("n_shared_experts");
    // The product is a dim like any other: in 32-bit arithmetic it would wrap silently
    // (3 × 2^31 gives 2^31, a wrong model that still evaluates).
    const std::uint64_t shared_intermediate = std::uint64_t{shared} * moe_intermediate;
    if (shared_intermediate > 0xffffffffull)
      throw DataError(hf.file() + ": n_shared_experts " + std::to_string(shared) + " * moe_intermediate_size " +
                      std::to_string(moe_intermediate) + " = " + std::to_string(shared_intermediate) +
                      " (the shared expert's intermediate size) overflows 32 bits");
    s.shared_intermediate = static_cast<std::uint32_t>(shared_intermediate);  // the shared experts run as one wider MLP
    return s;
  }
};
using DeepseekV3Shape = MlaMoeShape<DeepseekV3Layer>;
using DeepseekV3Config = MlaMoeConfig<DeepseekV3Layer>;  // Deployed<DeepseekV3Shape>

template <class Form, AttnGrain Grain = default_grain<Form>, ExpertGrain Experts = worklets::default_expert_grain<Form>>
using DeepseekV3 = MlaMoeStack<Form, Grain, Experts>;

// Published shapes (data/models/deepseek_v3.json is the source of truth; a test checks they agree).
inline constexpr DeepseekV3Shape deepseek_v3{
    .hidden = 7168, .num_heads = 128, .q_lora_rank = 1536, .kv_lora_rank = 512, .qk_nope_head_dim = 128,
    .qk_rope_head_dim = 64, .v_head_dim = 128, .intermediate = 18432, .moe_intermediate = 2048,
    .shared_intermediate = 2048, .num_experts = 256, .top_k = 8, .vocab = 129280, .num_layers = 61,
    .num_dense_layers = 3, .dtype = Dtype::bf16};

#if defined(COSTDSL_SEPARATE_COMPILATION)
// The run-time forms are instantiated once, in libcostdsl-compiled (meson.build, frame_families).
COSTDSL_MLA_MOE_STACK_INSTANCES(extern, DeepseekV3Config);
#endif

}  // namespace costdsl::archs
