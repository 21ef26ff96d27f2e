#pragma once
// Slots that answer once per evaluation (issue 39, "shared subtrees evaluated once").
//
// A tree often asks one question twice in one iteration: a dense layer's attention and
// MLP all-reduce the same rows over the same GPUs, the embedding's all-reduce asks it a
// third time, and DeepSeek's dense and MoE layers run the same MLA block on each DP
// group's same batch. A leaf's metrics are a function of its kernel and its input, so
// the second asking can copy the first answer, bit for bit.
//
// Which leaves may share is decided by their types: a share class is a Leaf type (slot
// name and kernel type) that occurs more than once in the tree, Fanout children
// included, whose kernel can say whether another of its type answers alike
// (`same_answers_as`: the same config bound to the same tables) and whose input is
// trivially copyable. Whether two of them share in this iteration is decided by the
// values: the kernels answer alike and the inputs are the same bytes (an input that
// refers to memory, a span of prefill chunks, is the same input when it refers to the
// same memory: nothing writes the inputs during an evaluation). Each class keeps its
// first answer per Fanout run (modulo 16): the dense layers' DP group r answers the MoE
// layers' group r. A mismatch costs a compare, and the evaluation it would have cost
// anyway.
//
// The memo lives on the stack of one evaluate() call (of one block of evaluate_many, of
// one Reevaluator call): nothing is allocated, nothing outlives the call, and concurrent
// evaluations of one tree share nothing.
#include <bit>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include <boost/mp11/algorithm.hpp>
#include <boost/mp11/list.hpp>

#include "costdsl/concepts.hpp"
#include "costdsl/detail/inline.hpp"
#include "costdsl/detail/node_rules.hpp"
#include "costdsl/detail/tuple.hpp"
#include "costdsl/eval_slot.hpp"
#include "costdsl/metrics.hpp"
#include "costdsl/quantities.hpp"

namespace costdsl::detail {

// Byte-equal leaf inputs (padding included: a difference there only costs a recompute).
template <class T>
COSTDSL_INLINE bool same_bytes(const T& a, const T& b) noexcept {
  if constexpr (std::is_trivially_copyable_v<T>) {
    return std::memcmp(&a, &b, sizeof(T)) == 0;
  } else {
    return false;
  }
}

// A slot kernel that can tell whether another of its type gives the same metrics for
// every input (Kernel<K>: the same config bound to the same tables; a wrapper: its own
// state and the kernel it wraps).
template <class K>
concept AnswersAlike = requires(const K& a) {
  { a.same_answers_as(a) } -> std::same_as<bool>;
};

// Every leaf type of a tree type, in slot order, a Fanout's child's included once.
template <class Node, bool = Node::node_kind == NodeKind::leaf>
struct tree_leaves {
  using type = boost::mp11::mp_list<Node>;
};
template <class Node>
struct tree_leaves<Node, false> {
  template <class C>
  using of = typename tree_leaves<C>::type;
  using type = boost::mp11::mp_apply<boost::mp11::mp_append, boost::mp11::mp_transform<of, children_t<Node>>>;
};

template <class Node, bool = Node::node_kind == NodeKind::leaf>
struct contains_fanout : std::false_type {};
template <class Node>
struct contains_fanout<Node, false> {
  template <class C>
  using of = contains_fanout<C>;
  static constexpr bool value =
      Node::node_kind == NodeKind::fanout || boost::mp11::mp_any_of<children_t<Node>, of>::value;
};

template <class L>
using can_share = std::bool_constant<AnswersAlike<typename L::kernel_type> &&
                                     std::is_trivially_copyable_v<typename L::kernel_type::Input>>;

template <class Tree>
struct share_classes {
  using leaves = typename tree_leaves<Tree>::type;
  template <class L>
  using repeated = std::bool_constant<(boost::mp11::mp_count<leaves, L>::value > 1)>;
  using type = boost::mp11::mp_copy_if<boost::mp11::mp_unique<boost::mp11::mp_copy_if<leaves, can_share>>, repeated>;
};

// The answers of one share class: one entry per run index modulo Runs, valid where its
// bit is set. The entries are left uninitialised: only the valid mask is.
template <class L, std::size_t Runs>
struct ShareEntries {
  static_assert(Runs <= 32 && std::has_single_bit(Runs));
  using K = typename L::kernel_type;
  using Input = typename K::Input;
  struct Entry {
    const K* kernel;
    Input input;
    Metrics metrics;
  };
  union Store {
    Store() noexcept {}
    Entry at[Runs];
  };
  std::uint32_t valid = 0;
  Store store;
};

// No sharing: the leaf is evaluated (replays, and where no memo is wanted).
struct NoShare {
  template <class L, Quantities Q, RankFold F, class In>
  COSTDSL_INLINE static Metrics eval(const typename L::kernel_type& kernel, const In& in, std::uint32_t) {
    return eval_slot<Q, F>(kernel, in);
  }
};

// Runs: the answers a class keeps, by run index modulo Runs (a power of two): the Fanout
// runs (DP groups) for evaluate(), the iterations of a block for evaluate_many. The first
// answer of an entry stays: with 32 DP groups the first Fanout's groups 0-15 answer the
// next Fanout's groups 0-15, and groups 16-31 miss (keeping the last answer instead, every
// group missed: group 16 had overwritten group 0). About 1 KB of stack per class; skipping
// the memo past 16 groups instead cost DeepSeek-V3's 8-group iteration 4.7% more
// instructions.
template <class Tree, std::size_t Runs = contains_fanout<Tree>::value ? 16 : 1,
          class Classes = typename share_classes<Tree>::type>
class ShareMemo;

template <class Tree, std::size_t Runs, class... L>
class ShareMemo<Tree, Runs, boost::mp11::mp_list<L...>> {
  template <class Leaf>
  static constexpr std::size_t class_of = boost::mp11::mp_find<boost::mp11::mp_list<L...>, Leaf>::value;

 public:
  // The leaf's metrics: copied from its class's answer for this run when the kernels
  // answer alike and the inputs are the same bytes, else evaluated (and kept if the run
  // has no answer yet).
  template <class Leaf, Quantities Q, RankFold F, class In>
  COSTDSL_INLINE Metrics eval(const typename Leaf::kernel_type& kernel, const In& in, std::uint32_t run) {
    if constexpr (class_of<Leaf> == sizeof...(L)) {
      return eval_slot<Q, F>(kernel, in);
    } else {
      auto& cls = detail::get<class_of<Leaf>>(classes_);
      const std::uint32_t r = run & (Runs - 1);
      const auto& e = cls.store.at[r];
      const bool kept = (cls.valid >> r & 1u) != 0;
      if (kept && same_bytes(e.input, in) && (e.kernel == &kernel || kernel.same_answers_as(*e.kernel)))
        return e.metrics;
      const Metrics m = eval_slot<Q, F>(kernel, in);
      if (!kept) {
        cls.store.at[r] = {&kernel, in, m};
        cls.valid |= 1u << r;
      }
      return m;
    }
  }

 private:
  detail::Tuple<ShareEntries<L, Runs>...> classes_;
};

}  // namespace costdsl::detail
