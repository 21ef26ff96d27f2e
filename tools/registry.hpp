#pragma once
// The archs the CLI ships (costdsl archs, --arch, --family): name → family and the
// config.json (data/models/) its run-time form is read from; and the families, with the
// HuggingFace `architectures` / `model_type` names a config.json of each family carries.
#include <string>
#include <string_view>
#include <vector>

#include "costdsl/error.hpp"

namespace costdsl::archs {

struct ArchInfo {
  std::string name;    // as `costdsl archs` prints it
  std::string family;  // a FamilyInfo name
  std::string config;  // file under data/models/
  std::string summary;
};

inline const std::vector<ArchInfo>& catalog() {
  static const std::vector<ArchInfo> archs{
      {"llama3_8b", "llama", "llama3_8b.json", "Llama-3-8B, dense, TP"},
      {"llama3_70b", "llama", "llama3_70b.json", "Llama-3-70B, dense, TP"},
      {"llama3_405b", "llama", "llama3_405b.json", "Llama-3.1-405B, dense, TP"},
      {"qwen3_8b", "qwen3", "qwen3_8b.json", "Qwen3-8B, dense, q/k norm, TP"},
      {"qwen3_32b", "qwen3", "qwen3_32b.json", "Qwen3-32B, dense, q/k norm, TP"},
      {"qwen3_30b_a3b", "qwen3_moe", "qwen3_30b_a3b.json", "Qwen3-30B-A3B, MoE 128 experts top-8, DP attention + EP"},
      {"qwen3_235b_a22b", "qwen3_moe", "qwen3_235b_a22b.json",
       "Qwen3-235B-A22B, MoE 128 experts top-8, DP attention + EP"},
      {"mixtral_8x7b", "mixtral", "mixtral_8x7b.json", "Mixtral-8x7B, MoE 8 experts top-2, DP attention + EP"},
      {"mixtral_8x22b", "mixtral", "mixtral_8x22b.json", "Mixtral-8x22B, MoE 8 experts top-2, DP attention + EP"},
      {"gpt_oss_120b", "gpt_oss", "gpt_oss_120b.json",
       "gpt-oss-120b, MoE 128 experts top-4 (MXFP4), sliding/full attention pairs, DP attention + EP"},
      {"gpt_oss_20b", "gpt_oss", "gpt_oss_20b.json",
       "gpt-oss-20b, MoE 32 experts top-4 (MXFP4), sliding/full attention pairs, DP attention + EP"},
      {"deepseek_v3", "deepseek_v3", "deepseek_v3.json",
       "DeepSeek-V3, MLA, 3 dense + 58 MoE layers, 256 experts top-8 + shared, DP attention + EP"},
  };
  return archs;
}

struct FamilyInfo {
  std::string name;                        // as --family takes it
  std::vector<std::string> architectures;  // config.json `architectures` entries it reads
  std::vector<std::string> model_types;    // config.json `model_type` values, when architectures is absent
  bool expert_parallel;                    // takes --ep / --dp (DP attention + EP experts)
  bool kv_parallel;                        // takes --hp (KV-parallel attention); the GQA families also --kv-replicate
};

// Mistral and Qwen2 read as Llama: the same dense layer (Qwen2's q/k/v bias and
// Mistral-7B-v0.1's sliding window are not modelled); MiniMax-M2 as Qwen3-MoE
// (Qwen3MoeConfig::from_hf says what differs).
inline const std::vector<FamilyInfo>& families() {
  static const std::vector<FamilyInfo> all{
      {"llama", {"LlamaForCausalLM", "MistralForCausalLM", "Qwen2ForCausalLM"}, {"llama", "mistral", "qwen2"}, false, true},
      {"qwen3", {"Qwen3ForCausalLM"}, {"qwen3"}, false, true},
      {"qwen3_moe", {"Qwen3MoeForCausalLM", "MiniMaxM2ForCausalLM"}, {"qwen3_moe", "minimax_m2"}, true, false},
      {"mixtral", {"MixtralForCausalLM"}, {"mixtral"}, true, false},
      {"gpt_oss", {"GptOssForCausalLM"}, {"gpt_oss"}, true, false},
      {"deepseek_v3", {"DeepseekV3ForCausalLM"}, {"deepseek_v3", "kimi_k2"}, true, true},
  };
  return all;
}

inline const FamilyInfo& find_family(std::string_view name) {
  std::string known;
  for (const auto& f : families()) {
    if (f.name == name) return f;
    known += (known.empty() ? "" : ", ") + f.name;
  }
  throw InputError("unknown family '" + std::string(name) + "' (known: " + known + ")");
}

inline const ArchInfo& find_arch(std::string_view name) {
  std::string known;
  for (const auto& a : catalog()) {
    if (a.name == name) return a;
    known += (known.empty() ? "" : ", ") + a.name;
  }
  throw InputError("unknown arch '" + std::string(name) + "' (known: " + known + ")");
}

}  // namespace costdsl::archs
