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

#include "costdsl/archs/input_scratch.hpp"
#include "costdsl/concepts.hpp"
#include "costdsl/fanout.hpp"
#include "costdsl/inputs.hpp"
#include "costdsl/labeled.hpp"

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
//   fan(dp, make)   the Fanout input: nest<"dp">(make(g)) for each group g
//   stored(w, in)   a worklet's inputs that point into a W::Storage (the routed load):
//                   owned by the inputs, or in the scratch
class OwnedGroups {
 public:
  template <class T>
  std::span<T> work(std::size_t n) {
    return scratch_.take<T>(n);
  }
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
  template <class F>
  auto fan(std::uint64_t dp, F&& make_group) {
    using Group = decltype(nest<"dp">(make_group(std::size_t{0})));
    const std::span<Group> groups = scratch_.take<Group>(dp);
    for (std::size_t g = 0; g < dp; ++g) groups[g] = nest<"dp">(make_group(g));
    return fanout_input(std::span<const Group>(groups));
  }
  template <class W>
  auto stored(const W& worklet, const typename W::Input& in) {
    return worklet.inputs(in, scratch_.take<typename W::Storage>(1)[0]);
  }

 private:
  InputScratch& scratch_;
};

}  // namespace costdsl::archs
