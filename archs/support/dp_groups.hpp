#pragma once
// DP attention groups: dp = ep / tp copies of a section, each with its own group's
// batch, as one run-time Fanout (a Max whose ranks are data, so the tree type and the
// slot list do not depend on the degree). The group's slots are labeled "dp":
//
//   build:  dp_groups(dp, sum(attn.build(t), router.build(t)))
//           → model.layer.dp.attn.input_norm, ... (the slowest group's times, all groups' work)
//   inputs: groups.fan(dp, [&](std::size_t g) { return inputs(attn.inputs(w[g]), router.inputs(s[g])); })
//           with groups an OwnedGroups or a ScratchGroups (below)
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "costdsl/archs/support/input_scratch.hpp"
#include "costdsl/concepts.hpp"
#include "costdsl/fanout.hpp"
#include "costdsl/inputs.hpp"
#include "costdsl/labeled.hpp"
#include "costdsl/rank_runs.hpp"

namespace costdsl::archs {

template <CostNode C>
auto dp_groups(std::uint64_t dp, C group) {
  return fanout(dp, labeled<"dp">("dp (each of " + std::to_string(dp) + " DP groups; the slowest shown)",
                                  std::move(group)));
}

// Where a DP arch's inputs() puts its per-group data: OwnedGroups gives each fan-out
// its own vector (`inputs(it)`: simplest, allocates every call); ScratchGroups uses an
// InputScratch's buffers (`inputs(it, scratch)`: nothing allocated once warm, the
// inputs borrow the scratch). Both offer
//   work<T>(n)      n elements of T for the body of inputs() (per-group sizes, sums)
//   fan(dp, make)   the Fanout input: nest<"dp">(make(g)) for each group g (ScratchGroups:
//                   for each run of groups dp_work found to share a batch, RankRuns)
//   stored(w, in)   a worklet's inputs that point into a W::Storage (the routed load):
//                   owned by the inputs, or in the scratch
class OwnedGroups {
 public:
  template <class T>
  std::span<T> work(std::size_t n) {
    return scratch_.take<T>(n);
  }
  // No buffer outlives inputs(): what the inputs must keep, they own.
  template <class T>
  std::span<T> lasting(std::size_t) noexcept {
    return {};
  }
  // Every group is listed, repeated or not: the self-contained reference form.
  void note_repeats(std::span<const std::uint8_t>) noexcept {}
  template <class F>
  auto fan(std::uint64_t dp, F&& make_group) {
    std::vector<decltype(nest<"dp">(make_group(std::size_t{0})))> groups;
    groups.reserve(dp);
    for (std::size_t g = 0; g < dp; ++g) groups.push_back(nest<"dp">(make_group(g)));
    return fanout_input(std::move(groups));
  }
  template <class W>
  auto stored(const W& worklet, const typename W::Input& in) {
    return worklet.inputs(in);
  }

 private:
  InputScratch scratch_;  // work arrays only: they die with inputs()'s frame
};

class ScratchGroups {
 public:
  explicit ScratchGroups(InputScratch& scratch) : scratch_(scratch) { scratch_.reset(); }
  template <class T>
  std::span<T> work(std::size_t n) {
    return scratch_.take<T>(n);
  }
  // A buffer the inputs may borrow: the scratch's, valid until it is used again.
  template <class T>
  std::span<T> lasting(std::size_t n) {
    return scratch_.take<T>(n);
  }
  // repeats[g]: group g has group g - 1's batch (dp_work); read by the fans that follow.
  void note_repeats(std::span<const std::uint8_t> repeats) noexcept { repeats_ = repeats; }
  // One input list per run of groups with the same batch, and the run's length: the
  // Fanout evaluates a run once (RankRuns), which is most of a DP iteration when the
  // deal leaves several groups the same requests.
  template <class F>
  auto fan(std::uint64_t dp, F&& make_group) {
    using Group = decltype(nest<"dp">(make_group(std::size_t{0})));
    const bool known = repeats_.size() == dp;
    std::size_t n_runs = 0;
    for (std::size_t g = 0; g < dp; ++g) n_runs += known && repeats_[g] ? 0 : 1;
    const std::span<Group> runs = scratch_.take<Group>(n_runs);
    const std::span<std::uint32_t> count = scratch_.take<std::uint32_t>(n_runs);
    std::size_t r = 0;
    for (std::size_t g = 0; g < dp; ++g) {
      if (known && repeats_[g]) {
        ++count[r - 1];
      } else {
        runs[r] = nest<"dp">(make_group(g));
        count[r++] = 1;
      }
    }
    return fanout_input(RankRuns<Group>{runs, count});
  }
  template <class W>
  auto stored(const W& worklet, const typename W::Input& in) {
    return worklet.inputs(in, scratch_.take<typename W::Storage>(1)[0]);
  }

 private:
  InputScratch& scratch_;
  std::span<const std::uint8_t> repeats_;
};

}  // namespace costdsl::archs
