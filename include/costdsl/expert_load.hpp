#pragma once
// How a MoE layer's token-rows fall on its experts when its expert kernel was measured.
//
// Public expert tables (NVIDIA aiconfigurator's `moe` tables, collect_moe.py) time each
// shape under balanced gating (every expert the same rows: at rows ≈ experts every expert
// is hit, the most weight traffic) and under token counts drawn from a power law of
// exponent 1.01 or 1.2, the hottest EP group measured. aiconfigurator estimated those
// exponents by matching served latency on real datasets (1.01 for DeepSeek-V3 / R1, 1.2
// for Qwen3-235B) and looks its MoE models up at them (ai-dynamo/aiconfigurator at
// 28db912: `sdk/models/deepseek.py` 1.01, `sdk/models/moe.py` 1.2 for Mixtral, Llama-4,
// MiniMax-M2, Qwen3 MoE and gpt-oss); a served batch's routing is not balanced.
#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace costdsl {

enum class ExpertLoad : std::uint8_t { balanced, power_law_1_01, power_law_1_2 };

inline constexpr std::array<ExpertLoad, 3> all_expert_loads{ExpertLoad::balanced, ExpertLoad::power_law_1_01,
                                                            ExpertLoad::power_law_1_2};

// The measurement's name in the tables (aiconfigurator's `distribution` column).
constexpr std::string_view name(ExpertLoad l) noexcept {
  switch (l) {
    case ExpertLoad::balanced: return "balanced";
    case ExpertLoad::power_law_1_01: return "power_law_1.01";
    case ExpertLoad::power_law_1_2: return "power_law_1.2";
  }
  return "?";
}

// Every value, for parsing a name back (reflect.hpp's parse_field_text).
constexpr const std::array<ExpertLoad, 3>& enum_values(ExpertLoad) noexcept { return all_expert_loads; }

// The names, comma-separated, for messages and help text.
inline std::string expert_load_names() {
  std::string out;
  for (ExpertLoad l : all_expert_loads) out.append(out.empty() ? "" : ", ").append(name(l));
  return out;
}

}  // namespace costdsl
