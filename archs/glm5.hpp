#pragma once
// L4 GLM-5 (GlmMoeDsaForCausalLM, model_type glm_moe_dsa): DeepSeek-V3's dense-then-MoE MLA
// frame (archs/frames/mla_moe_stack.hpp) with DeepSeek sparse attention (DSA) in every
// layer: a lightning indexer (index_n_heads heads of index_head_dim, its q from the q latent,
// one cached key per token from the hidden state) scores every cached token for every
// query, keeps the index_topk best, and MLA attends over those alone (ops/attention/dsa.hpp,
// run by worklets/mla_block_tp.hpp on the frame's DsaForm). The indexer's key cache (fp8 +
// an fp32 scale per token and layer) joins the KV bytes per token.
//   model = Sum(Max_dp(embed), dense_layer × D, moe_layer × (L − D), Max_dp(lm_head))
// Not modelled: the multi-token-prediction layer (num_nextn_predict_layers: a speculative
// draft head, not run by plain decoding); KV-parallel (hp) decode of sparse attention (a
// ConfigError); the indexer's activation quantization before its fp8 logits.
#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "costdsl/archs/deepseek_v3.hpp"
#include "costdsl/archs/frames/mla_moe_stack.hpp"
#include "costdsl/dtype.hpp"
#include "costdsl/error.hpp"
#include "costdsl/hf_config.hpp"
#include "costdsl/worklets/attn_grain.hpp"
#include "costdsl/worklets/expert_grain.hpp"

namespace costdsl::archs {

struct Glm5Layer {
  // The family as --family names it and the config.json names it reads (`architectures`,
  // else `model_type`).
  static constexpr std::string_view family = "glm5";
  static constexpr std::array<std::string_view, 1> architectures{"GlmMoeDsaForCausalLM"};
  static constexpr std::array<std::string_view, 1> model_types{"glm_moe_dsa"};
  static constexpr std::string_view name = "GLM-5";
  static constexpr bool sparse_attention = true;

  // DeepSeek-V3's keys and rules, then the indexer's: each index_* key present, a positive
  // integer, its key at least as wide as the rotary part it carries; one indexer a layer.
  template <class S>
  static S from_hf(const HfConfig& hf) {
    S c = DeepseekV3Layer::from_hf<S>(hf, name);
    const auto reject = [&](std::string_view key, const std::string& value, std::string_view rule) {
      return DataError(hf.file() + ": " + std::string(key) + " " + value + " " + std::string(rule));
    };
    const auto index_key = [&](std::string_view key, std::string_view what) -> std::uint32_t {
      const HfConfig::Value* v = hf.find(key);
      if (v == nullptr)
        throw reject(key, "missing", std::string("is required: the glm5 family's lightning indexer has ") + std::string(what));
      if (v->json.starts_with("-") || v->json == "0")
        throw reject(key, v->json, std::string("must be at least 1: the lightning indexer has ") + std::string(what));
      return hf.dim(key);
    };
    c.indexer = {index_key("index_n_heads", "index_n_heads heads"),
                 index_key("index_head_dim", "keys of index_head_dim elements"),
                 index_key("index_topk", "index_topk cached tokens selected for every query")};
    if (c.indexer.index_head_dim < c.qk_rope_head_dim)
      throw reject("index_head_dim", std::to_string(c.indexer.index_head_dim),
                   "is below qk_rope_head_dim " + std::to_string(c.qk_rope_head_dim) +
                       ": the indexer's q and k carry the rotary part");
    if (hf.dim("index_topk_freq", 1) != 1)
      throw reject("index_topk_freq", std::to_string(hf.dim("index_topk_freq")),
                   "is not 1: the glm5 family models an indexer selecting in every layer");
    return c;
  }
};
using Glm5Shape = MlaMoeShape<Glm5Layer>;
using Glm5Config = MlaMoeConfig<Glm5Layer>;  // Deployed<Glm5Shape>

template <class Form, AttnGrain Grain = default_grain<Form>, ExpertGrain Experts = worklets::default_expert_grain<Form>>
using Glm5 = MlaMoeStack<Form, Grain, Experts>;

// Published shape (data/models/glm5.json is the source of truth; a test checks they agree).
inline constexpr Glm5Shape glm5{
    .hidden = 6144, .num_heads = 64, .q_lora_rank = 2048, .kv_lora_rank = 512, .qk_nope_head_dim = 192,
    .qk_rope_head_dim = 64, .v_head_dim = 256, .intermediate = 12288, .moe_intermediate = 2048,
    .shared_intermediate = 2048, .num_experts = 256, .top_k = 8, .vocab = 154880, .num_layers = 78,
    .num_dense_layers = 3, .dtype = Dtype::bf16,
    .indexer = {.index_n_heads = 32, .index_head_dim = 128, .index_topk = 2048}};

#if defined(COSTDSL_SEPARATE_COMPILATION)
// The run-time forms are instantiated once, in libcostdsl-compiled (meson.build, frame_families).
COSTDSL_MLA_MOE_STACK_INSTANCES(extern, Glm5Config);
#endif

}  // namespace costdsl::archs
