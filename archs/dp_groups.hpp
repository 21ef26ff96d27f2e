#pragma once
// DP attention groups: dp = ep / tp copies of a section, each with its own group's
// batch, as one run-time Fanout (a Max whose ranks are data, so the tree type and the
// slot list do not depend on the degree). The group's slots are labeled "dp":
//
//   build:  dp_groups(dp, sum(attn.build(t), router.build(t)))
//           → model.layer.dp.attn.input_norm, ... (the slowest group's times, all groups' work)
//   inputs: dp_group_inputs(dp, [&](std::size_t g) { return inputs(attn.inputs(w[g]), router.inputs(s[g])); })
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "costdsl/costdsl.hpp"

namespace costdsl::archs {

template <CostNode C>
auto dp_groups(std::uint64_t dp, C group) {
  return fanout(dp, labeled<"dp">("dp (each of " + std::to_string(dp) + " DP groups; the slowest shown)",
                                  std::move(group)));
}

// One input list per group, in group order, owned by the returned entry.
template <class F>
auto dp_group_inputs(std::uint64_t dp, F&& make_group) {
  using Group = decltype(nest<"dp">(make_group(std::size_t{0})));
  std::vector<Group> groups;
  groups.reserve(dp);
  for (std::size_t g = 0; g < dp; ++g) groups.push_back(nest<"dp">(make_group(g)));
  return fanout_input(std::move(groups));
}

}  // namespace costdsl::archs
