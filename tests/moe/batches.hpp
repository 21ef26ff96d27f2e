#pragma once
// Shared by the MoE tests: one iteration's batches (and the arch tests' roofline H200 timing).
#include <cstdint>
#include <span>
#include <vector>

#include "../archs/common.hpp"
#include "costdsl/archs/qwen3_moe.hpp"
#include "costdsl/costdsl.hpp"

namespace moe_test {

using arch_test::roofline_h200;

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
