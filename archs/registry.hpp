#pragma once
// The archs costdsl ships, for the CLI and benchmarks: name → family and the
// config.json (data/models/) its run-time form is read from.
#include <string>
#include <string_view>
#include <vector>

#include "costdsl/error.hpp"

namespace costdsl::archs {

struct ArchInfo {
  std::string name;    // as `costdsl archs` prints it
  std::string family;  // llama | qwen3_moe | deepseek_v3
  std::string config;  // file under data/models/
  std::string summary;
};

inline const std::vector<ArchInfo>& catalog() {
  static const std::vector<ArchInfo> archs{
      {"llama3_8b", "llama", "llama3_8b.json", "Llama-3-8B, dense, TP"},
      {"llama3_70b", "llama", "llama3_70b.json", "Llama-3-70B, dense, TP"},
      {"llama3_405b", "llama", "llama3_405b.json", "Llama-3.1-405B, dense, TP"},
      {"qwen3_30b_a3b", "qwen3_moe", "qwen3_30b_a3b.json", "Qwen3-30B-A3B, MoE 128 experts top-8, DP attention + EP"},
      {"qwen3_235b_a22b", "qwen3_moe", "qwen3_235b_a22b.json",
       "Qwen3-235B-A22B, MoE 128 experts top-8, DP attention + EP"},
      {"deepseek_v3", "deepseek_v3", "deepseek_v3.json",
       "DeepSeek-V3, MLA, 3 dense + 58 MoE layers, 256 experts top-8 + shared, DP attention + EP"},
  };
  return archs;
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
