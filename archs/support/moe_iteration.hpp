#pragma once
// One scheduler iteration of a DP-attention MoE arch: a batch per DP group and how the
// gate spreads tokens over experts; DpDeal, which makes one from a whole-model batch the
// way a DP scheduler balancing request counts would; and dp_work, the per-group figures
// every DP arch's inputs() starts from.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "costdsl/error.hpp"
#include "costdsl/ops/attention/attention.hpp"
#include "costdsl/ops/moe/routing.hpp"

namespace costdsl::archs {

struct MoeIteration {
  std::span<const ops::AttentionBatch> groups;
  ops::moe::Routing routing{};
};

// One DP group's figures: its collapsed attention work (Work: ops::AttentionWork,
// ops::MlaWork), its logits rows, and the rows each of its tp ranks routes (after the
// group's all-reduce the ranks split the rows).
template <class Work>
struct DpGroupWork {
  Work attention;
  std::uint64_t requests = 0;
  std::uint64_t slice = 0;
};

template <class Work>
struct DpWork {
  std::span<DpGroupWork<Work>> groups;
  std::uint64_t tokens = 0;     // all groups' rows: every token is routed once
  std::uint64_t max_slice = 0;  // the busiest rank's rows: what one rank dispatches
};

// Whether two groups were handed the same requests (every input of a group follows from them).
inline bool same_batch(const ops::AttentionBatch& a, const ops::AttentionBatch& b) noexcept {
  if (a.prefill.size() != b.prefill.size() || a.decode_kv.size() != b.decode_kv.size() ||
      a.decode_rows != b.decode_rows)
    return false;
  for (std::size_t i = 0; i < a.prefill.size(); ++i)
    if (a.prefill[i].prefix_len != b.prefill[i].prefix_len || a.prefill[i].append_len != b.prefill[i].append_len)
      return false;
  return std::equal(a.decode_kv.begin(), a.decode_kv.end(), b.decode_kv.begin());
}

// Checks the iteration has one batch per group (arch names the arch in the message) and
// collapses each; the per-group array comes from `groups` (archs::OwnedGroups or
// ScratchGroups, dp_groups.hpp), so a warm scratch allocates nothing. Tells `groups`
// which groups repeat their neighbour's batch (ScratchGroups evaluates such runs once).
template <class Groups, class Collapse>
auto dp_work(std::string_view arch, const MoeIteration& it, std::uint64_t dp, std::uint64_t tp, Groups& groups,
             Collapse collapse) {
  using Work = std::invoke_result_t<Collapse, const ops::AttentionBatch&>;
  if (it.groups.size() != dp)
    throw InputError(std::string(arch) + ": the iteration has " + std::to_string(it.groups.size()) +
                     " DP group batches, dp is " + std::to_string(dp));
  DpWork<Work> out{groups.template work<DpGroupWork<Work>>(dp)};
  // Groups with the batch of the group before them form a run the fan-outs evaluate once.
  const std::span<std::uint8_t> repeats = groups.template work<std::uint8_t>(dp);
  for (std::size_t g = 0; g < dp; ++g) repeats[g] = g > 0 && same_batch(it.groups[g], it.groups[g - 1]);
  groups.note_repeats(repeats);
  for (std::size_t g = 0; g < dp; ++g) {
    // A group with its neighbour's batch has its neighbour's work (collapse reads only the
    // batch's contents): the deal leaves most groups of a decode-heavy batch alike.
    const Work a = repeats[g] ? out.groups[g - 1].attention : collapse(it.groups[g]);
    out.groups[g] = {a, it.groups[g].prefill.size() + a.decode_count, (a.append_tokens + tp - 1) / tp};
    out.tokens += a.append_tokens;
    out.max_slice = std::max(out.max_slice, out.groups[g].slice);
  }
  return out;
}

// Deals requests over dp groups round-robin: prefill chunks first, the decodes
// continuing the deal. A decode's rows (decode_rows: a speculative step's verified tokens)
// stay with it in its group. The returned iteration points into this object's buffers,
// which keep their capacity from call to call (no allocation once warm).
class DpDeal {
 public:
  MoeIteration deal(const ops::AttentionBatch& batch, std::uint64_t dp, ops::moe::Routing routing = {}) {
    if (dp == 0) throw InputError("DpDeal: dp is 0; an iteration needs at least one DP group");
    groups_.resize(dp);
    deal_list(batch.prefill, 0, prefill_, &ops::AttentionBatch::prefill);
    deal_list(batch.decode_kv, batch.prefill.size() % dp, decode_, &ops::AttentionBatch::decode_kv);
    for (ops::AttentionBatch& g : groups_) g.decode_rows = batch.decode_rows;
    return {std::span<const ops::AttentionBatch>(groups_.data(), dp), routing};
  }

 private:
  // items[i] goes to group (first_group + i) % dp: each group's share is every dp-th item
  // from the first one that lands on it, copied with a stride into one buffer that holds
  // the groups' shares back to back (one push_back per item, with its capacity check, was
  // a tenth of a Qwen3 iteration; one buffer per group, a resize each).
  template <class T>
  void deal_list(std::span<const T> items, std::size_t first_group, std::vector<T>& shares,
                 std::span<const T> ops::AttentionBatch::*list) {
    const std::size_t dp = groups_.size(), n = items.size();
    shares.resize(n);
    T* to = shares.data();
    for (std::size_t g = 0; g < dp; ++g) {
      const std::size_t first = g >= first_group ? g - first_group : g + dp - first_group;
      T* const share = to;
      for (std::size_t i = first; i < n; i += dp) *to++ = items[i];
      groups_[g].*list = std::span<const T>(share, to);
    }
  }

  std::vector<ops::PrefillChunk> prefill_;
  std::vector<std::uint32_t> decode_;
  std::vector<ops::AttentionBatch> groups_;
};

}  // namespace costdsl::archs
