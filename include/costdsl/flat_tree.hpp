#pragma once
// The runtime twin: the same algebra over a flat array of nodes in BFS order.
// Every composite owns a contiguous range of child indices and every parent
// precedes its children, so one reverse pass aggregates with no recursion and
// no allocation (the caller owns the scratch buffer).
//
// A static tree lowers to it (lower.hpp); a tree whose shape is known only at
// run time is described as a RuntimeNode and flattened the same way.
#include <cstddef>
#include <cstdint>
#include <deque>
#include <span>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "costdsl/concepts.hpp"
#include "costdsl/detail/inline.hpp"
#include "costdsl/error.hpp"
#include "costdsl/labeled.hpp"
#include "costdsl/max.hpp"
#include "costdsl/metrics.hpp"
#include "costdsl/parallel.hpp"
#include "costdsl/scale.hpp"
#include "costdsl/sum.hpp"

namespace costdsl {

struct FlatNode {
  NodeKind kind = NodeKind::leaf;
  std::uint32_t first = 0;  // leaf: slot index; composite: first child index
  std::uint32_t count = 0;  // composite: number of children
  double param = 0;         // scale: n; parallel: overlap; max: ranks of a run-time Fanout (else 0)
  // A Max's rank count: its children, or the ranks its one child stands for (a Fanout).
  double ranks() const noexcept { return param != 0 ? param : count; }

  friend bool operator==(const FlatNode&, const FlatNode&) = default;
};

// A tree described at run time (nested, depth-first). Leaves take slot indices
// in depth-first order, the same visit order as a static tree's slot list.
struct RuntimeNode {
  NodeKind kind = NodeKind::leaf;
  double param = 0;
  std::string label;  // leaf: slot path; labeled: the label text
  std::vector<RuntimeNode> children;

  static RuntimeNode leaf(std::string path) { return {NodeKind::leaf, 0, std::move(path), {}}; }
  static RuntimeNode sum(std::vector<RuntimeNode> c) { return {NodeKind::sum, 0, {}, std::move(c)}; }
  static RuntimeNode max(std::vector<RuntimeNode> c) { return {NodeKind::max, 0, {}, std::move(c)}; }
  static RuntimeNode parallel(double overlap, std::vector<RuntimeNode> c) {
    return {NodeKind::parallel, overlap, {}, std::move(c)};
  }
  static RuntimeNode scale(double n, RuntimeNode c) { return {NodeKind::scale, n, {}, {std::move(c)}}; }
  static RuntimeNode labeled(std::string label, RuntimeNode c) {
    return {NodeKind::labeled, 0, std::move(label), {std::move(c)}};
  }
};

class FlatTree {
 public:
  FlatTree() = default;

  // Checks every structural rule; the manifest loader relies on it.
  FlatTree(std::vector<FlatNode> nodes, std::vector<std::string> labels, std::size_t n_slots)
      : nodes_(std::move(nodes)), labels_(std::move(labels)), n_slots_(n_slots) {
    validate();
  }

  static FlatTree from_runtime(const RuntimeNode& root) {
    std::vector<FlatNode> nodes;
    std::vector<std::string> labels;
    // Slots are numbered depth-first; layout is breadth-first.
    std::unordered_map<const RuntimeNode*, std::uint32_t> slot_of;
    std::uint32_t next_slot = 0;
    number_leaves(root, next_slot, slot_of);
    std::deque<const RuntimeNode*> queue{&root};
    while (!queue.empty()) {
      const RuntimeNode* n = queue.front();
      queue.pop_front();
      FlatNode f{n->kind, 0, 0, n->param};
      if (n->kind == NodeKind::leaf) {
        f.first = slot_of.at(n);
      } else {
        f.first = static_cast<std::uint32_t>(nodes.size() + 1 + queue.size());
        f.count = static_cast<std::uint32_t>(n->children.size());
        for (const auto& c : n->children) queue.push_back(&c);
      }
      nodes.push_back(f);
      labels.push_back(n->label);
    }
    return FlatTree(std::move(nodes), std::move(labels), next_slot);
  }

  const std::vector<FlatNode>& nodes() const noexcept { return nodes_; }
  const std::vector<std::string>& labels() const noexcept { return labels_; }
  std::size_t n_slots() const noexcept { return n_slots_; }
  std::size_t size() const noexcept { return nodes_.size(); }

  // How a Max folds its children's times: the real max, or their mean (the
  // balanced lower bound: what perfect load balance would give). Parallel is
  // never rebalanced.
  using MaxFold = RankFold;

  // One reverse pass: scratch[i] = the metrics of node i; returns the root's. Each
  // kind folds its children with the static tree's fold (sum.hpp, max.hpp, ...), so
  // the twin's results are bitwise the static evaluation's.
  Metrics aggregate(std::span<const Metrics> slots, std::span<Metrics> scratch, MaxFold fold = MaxFold::max) const {
    if (slots.size() != n_slots_)
      throw InputError("aggregate: got " + std::to_string(slots.size()) + " slot metrics for a tree with " +
                       std::to_string(n_slots_) + " slots");
    if (scratch.size() < nodes_.size())
      throw InputError("aggregate: scratch holds " + std::to_string(scratch.size()) + " entries, the tree has " +
                       std::to_string(nodes_.size()) + " nodes");
    for (std::size_t i = nodes_.size(); i-- > 0;) {
      const FlatNode& n = nodes_[i];
      const Metrics* children = scratch.data() + n.first;
      switch (n.kind) {
        case NodeKind::leaf: scratch[i] = slots[n.first]; break;
        case NodeKind::labeled: scratch[i] = fold_all(algebra::LabeledFold{}, children, n.count); break;
        case NodeKind::scale: scratch[i] = fold_all(algebra::ScaleFold{n.param}, children, n.count); break;
        case NodeKind::sum: scratch[i] = fold_all(algebra::SumFold{}, children, n.count); break;
        case NodeKind::parallel: scratch[i] = fold_all(algebra::ParallelFold{n.param}, children, n.count); break;
        case NodeKind::max:
        case NodeKind::fanout:  // rejected by validate(): a Fanout lowers to a max with ranks
          scratch[i] = fold == MaxFold::mean ? fold_all(algebra::MaxFold<RankFold::mean>{}, children, n.count)
                                             : fold_all(algebra::MaxFold<RankFold::max>{}, children, n.count);
          break;
      }
    }
    return nodes_.empty() ? Metrics{} : scratch[0];
  }

  // Convenience for build-time callers: allocates its own scratch.
  Metrics aggregate(std::span<const Metrics> slots, MaxFold fold = MaxFold::max) const {
    std::vector<Metrics> scratch(nodes_.size());
    return aggregate(slots, scratch, fold);
  }

 private:
  template <class Fold>
  COSTDSL_INLINE static Metrics fold_all(Fold f, const Metrics* first, std::uint32_t count) noexcept {
    for (std::uint32_t c = 0; c < count; ++c) f.add(first[c]);
    return f.result();
  }

  static void number_leaves(const RuntimeNode& n, std::uint32_t& next,
                            std::unordered_map<const RuntimeNode*, std::uint32_t>& slot_of) {
    if (n.kind == NodeKind::leaf) slot_of.emplace(&n, next++);
    for (const auto& c : n.children) number_leaves(c, next, slot_of);
  }

  void validate() const {
    auto fail = [](std::size_t i, const std::string& what) {
      throw DataError("flat tree node " + std::to_string(i) + ": " + what);
    };
    if (labels_.size() != nodes_.size())
      throw DataError("flat tree: " + std::to_string(labels_.size()) + " labels for " +
                      std::to_string(nodes_.size()) + " nodes (they must be index-aligned)");
    std::vector<bool> slot_seen(n_slots_, false);
    std::vector<bool> has_parent(nodes_.size(), false);
    for (std::size_t i = 0; i < nodes_.size(); ++i) {
      const FlatNode& n = nodes_[i];
      if (n.kind == NodeKind::leaf) {
        if (n.first >= n_slots_) fail(i, "slot " + std::to_string(n.first) + " out of range");
        if (slot_seen[n.first]) fail(i, "slot " + std::to_string(n.first) + " appears twice");
        slot_seen[n.first] = true;
        continue;
      }
      if (n.kind == NodeKind::fanout) fail(i, "a fanout is held as what it lowers to, a max with ranks");
      const bool single = n.kind == NodeKind::scale || n.kind == NodeKind::labeled;
      if (single && n.count != 1) fail(i, std::string(name(n.kind)) + " must have exactly 1 child");
      if (!single && n.count == 0) fail(i, std::string(name(n.kind)) + " has no children");
      if (n.first <= i) fail(i, "children must come after their parent (BFS order)");
      if (std::size_t{n.first} + n.count > nodes_.size()) fail(i, "child range runs past the end");
      if (n.kind == NodeKind::scale && !(n.param >= 1)) fail(i, "scale n must be >= 1");
      if (n.kind == NodeKind::parallel && !(n.param > 0 && n.param <= 1)) fail(i, "parallel overlap outside (0, 1]");
      if (n.kind == NodeKind::max && n.param != 0 && (n.count != 1 || !(n.param >= 1)))
        fail(i, "a max with ranks (a run-time fanout) needs ranks >= 1 and exactly 1 child");
      for (std::uint32_t c = n.first; c < n.first + n.count; ++c) {
        if (has_parent[c]) fail(c, "has two parents");
        has_parent[c] = true;
      }
    }
    for (std::size_t i = 1; i < nodes_.size(); ++i)
      if (!has_parent[i]) fail(i, "is not reachable from the root");
    for (std::size_t s = 0; s < n_slots_; ++s)
      if (!slot_seen[s]) throw DataError("flat tree: slot " + std::to_string(s) + " has no leaf");
  }

  std::vector<FlatNode> nodes_;
  std::vector<std::string> labels_;
  std::size_t n_slots_ = 0;
};

}  // namespace costdsl
