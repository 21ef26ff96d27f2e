#pragma once
// Shared by the MoE tests: a roofline H200 timing and one iteration's batches.
#include <cstdint>
#include <span>
#include <vector>

#include "costdsl/costdsl.hpp"
#include "costdsl/archs/qwen3_moe.hpp"

namespace moe_test {

inline const costdsl::Timing& roofline_h200() {
  static const costdsl::Timing t = costdsl::load_timing("h200", costdsl::TimingMode::roofline);
  return t;
}

// One 4096-token prefill chunk and 64 decodes at 2048 KV, spread over `dp` groups:
// the prefill on group 0, the decodes dealt round-robin.
struct Batches {
  std::vector<costdsl::ops::PrefillChunk> prefill{{0, 4096}};
  std::vector<std::vector<std::uint32_t>> decode;
  std::vector<costdsl::ops::AttentionBatch> groups;
  explicit Batches(std::size_t dp, std::size_t decodes = 64, std::uint32_t kv = 2048) : decode(dp) {
    for (std::size_t i = 0; i < decodes; ++i) decode[i % dp].push_back(kv);
    for (std::size_t g = 0; g < dp; ++g)
      groups.push_back({g == 0 ? std::span<const costdsl::ops::PrefillChunk>(prefill)
                               : std::span<const costdsl::ops::PrefillChunk>{},
                        decode[g]});
  }
  costdsl::archs::MoeIteration it(costdsl::ops::moe::Routing r = {}) const { return {groups, r}; }
};

}  // namespace moe_test
