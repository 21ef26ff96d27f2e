#pragma once
// The kernel families as the pictures and the sweep table show them: their order and
// colours, and an iteration's time split by family along the critical path. A slot's
// family is the one its kernel declares, recorded in the manifest (SlotDescription).
#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "costdsl/family.hpp"
#include "costdsl/manifest.hpp"
#include "costdsl/metrics.hpp"

namespace costdsl::cli {

inline constexpr std::size_t n_families = 5;  // Family::gemm .. Family::other, in enum order
inline constexpr std::array<Family, n_families> all_families{Family::gemm, Family::attention, Family::memory,
                                                            Family::communication, Family::other};

constexpr std::size_t family_index(Family f) noexcept { return static_cast<std::size_t>(f); }

inline std::string_view family_colour(Family f) noexcept {
  switch (f) {
    case Family::gemm: return "#4e79a7";
    case Family::attention: return "#f28e2b";
    case Family::memory: return "#59a14f";
    case Family::communication: return "#e15759";
    case Family::other: return "#9c9c9c";
  }
  return "#9c9c9c";
}

// The iteration time split by kernel family along the critical path, so that the
// parts add up to the total exactly (up to rounding) whatever the tree holds.
//
// Why not aggregate a row with only one family's slots non-zero? Under Sum and
// Scale both give the same numbers. Under Max and Parallel they do not: a masked
// aggregate is "the time this family would take alone", max over ranks of that
// family's time, and max(a+b) <= max(a)+max(b), so the masked totals over-count
// (their sum exceeds the iteration time) and cannot be stacked. Here a Sum adds
// its children, a Scale multiplies by n, and a Max / Parallel charges its time to
// its critical (slowest) child only, scaled by node time / child time (1 for a
// Max, 1/overlap for a Parallel, mean/max under FlatTree::MaxFold::mean).
inline std::array<double, n_families> family_times(const Manifest& m, std::span<const Metrics> node_metrics) {
  std::array<double, n_families> out{};
  const auto& nodes = m.tree.nodes();
  if (nodes.empty() || node_metrics.size() < nodes.size()) return out;
  auto walk = [&](std::size_t i, double w, auto& self) -> void {
    const FlatNode& n = nodes[i];
    switch (n.kind) {
      case NodeKind::leaf:
        out[family_index(m.slots.at(n.first).family)] += w * node_metrics[i].time_s;
        break;
      case NodeKind::labeled: self(n.first, w, self); break;
      case NodeKind::scale: self(n.first, w * n.param, self); break;
      case NodeKind::sum:
        for (std::uint32_t c = n.first; c < n.first + n.count; ++c) self(c, w, self);
        break;
      case NodeKind::max:
      case NodeKind::fanout:  // not in a twin (a Fanout lowers to a max): folded as one
      case NodeKind::parallel: {
        std::uint32_t crit = n.first;
        for (std::uint32_t c = n.first; c < n.first + n.count; ++c)
          if (node_metrics[c].time_s > node_metrics[crit].time_s) crit = c;
        if (node_metrics[crit].time_s > 0) self(crit, w * node_metrics[i].time_s / node_metrics[crit].time_s, self);
        break;
      }
    }
  };
  walk(0, 1.0, walk);
  return out;
}

}  // namespace costdsl::cli
