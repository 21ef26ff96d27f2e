#pragma once
// RankRuns: a Fanout's per-rank input lists with runs of identical neighbouring ranks
// given once. DP attention groups dealt round-robin often carry the same batch (64
// equal decodes over 8 groups: 7 identical groups), and evaluating a group's leaves is
// most of an MoE iteration; a run is evaluated once and counted `count` times. The
// result is the one the expanded list gives, bit for bit: the ranks' work is still
// added rank by rank, in rank order, and the slowest rank is still the first slowest.
//
//   fanout_input(RankRuns<Group>{distinct_groups, run_lengths})
#include <cstdint>
#include <span>

namespace costdsl {

template <class R>
struct RankRuns {
  std::span<const R> runs;               // one input list per run, in rank order
  std::span<const std::uint32_t> count;  // the ranks of each run (each >= 1)
};

}  // namespace costdsl
