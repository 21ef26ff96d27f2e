#pragma once
// The parallelism of one worker: tensor parallel degree (for a DP-attention MoE arch,
// the attention TP inside each DP group), expert-parallel degree (1 for a dense arch;
// for a MoE arch, the worker's GPUs: dp = ep / tp attention groups) and KV-parallel
// degree (the KV-parallel grain, decode only: hp × tp GPUs per attention group).
#include <cstdint>

namespace costdsl::serve {

struct Parallel {
  std::uint32_t tp = 1, ep = 1;
  std::uint32_t hp = 1;
  // A MoE arch's experts split both ways: each expert's width moe_tp ways inside groups of
  // moe_tp of the ep GPUs (one attention group, dp 1); 1: whole experts per rank. Pinned
  // deployments set it; the search leaves it 1.
  std::uint32_t moe_tp = 1;
  friend bool operator==(const Parallel&, const Parallel&) = default;
};

}  // namespace costdsl::serve
