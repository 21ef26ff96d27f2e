#pragma once
// One scheduler iteration of a DP-attention MoE arch: a batch per DP group and how the
// gate spreads tokens over experts; and DpDeal, which makes one from a whole-model
// batch the way a DP scheduler balancing request counts would.
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "costdsl/error.hpp"
#include "costdsl/ops/attention/attention.hpp"
#include "costdsl/ops/moe/routing.hpp"

namespace costdsl::archs {

struct MoeIteration {
  std::span<const ops::AttentionBatch> groups;
  ops::moe::Routing routing{};
};

// Deals requests over dp groups round-robin: prefill chunks first, the decodes
// continuing the deal. The returned iteration points into this object's buffers,
// which keep their capacity from call to call (no allocation once warm).
class DpDeal {
 public:
  MoeIteration deal(const ops::AttentionBatch& batch, std::uint64_t dp, ops::moe::Routing routing = {}) {
    if (dp == 0) throw InputError("DpDeal: dp is 0; an iteration needs at least one DP group");
    prefill_.resize(dp);
    decode_.resize(dp);
    for (auto& p : prefill_) p.clear();
    for (auto& d : decode_) d.clear();
    std::size_t next = 0;  // the group the next request goes to (a wrapping counter, no divide)
    const auto advance = [&] { next = next + 1 == dp ? 0 : next + 1; };
    for (const auto& chunk : batch.prefill) {
      prefill_[next].push_back(chunk);
      advance();
    }
    for (const std::uint32_t kv : batch.decode_kv) {
      decode_[next].push_back(kv);
      advance();
    }
    groups_.resize(dp);
    for (std::size_t g = 0; g < dp; ++g) groups_[g] = {prefill_[g], decode_[g]};
    return {std::span<const ops::AttentionBatch>(groups_.data(), dp), routing};
  }

 private:
  std::vector<std::vector<ops::PrefillChunk>> prefill_;
  std::vector<std::vector<std::uint32_t>> decode_;
  std::vector<ops::AttentionBatch> groups_;
};

}  // namespace costdsl::archs
