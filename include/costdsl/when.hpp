#pragma once
// Conditional slots (the TP all-reduce exists only when tp > 1).
//
//   when(cond, leaf<"tp_allreduce">(k))      and, in the input list,
//   when(cond, input<"tp_allreduce">(x))
//
// With a static condition (std::bool_constant, Static<0|1>) a false slot is
// absent from the tree type and its input from the input list. With a run-time
// bool the tree shape stays fixed (INV-1): the slot is always there and pushes
// an all-zero metric while the condition is false.
#include <type_traits>
#include <utility>
#include <vector>

#include "costdsl/concepts.hpp"
#include "costdsl/eval_slot.hpp"
#include "costdsl/leaf.hpp"
#include "costdsl/static_value.hpp"

namespace costdsl {

// A kernel that does nothing while its run-time condition is false.
template <SlotKernel K>
struct Gated {
  static constexpr auto kind = K::kind;
  static constexpr Family family = slot_family_v<K>;
  using Input = typename K::Input;
  K kernel;
  bool enabled;

  template <Quantities Q = Quantities::with_energy, RankFold F = RankFold::max>
  Metrics eval(const Input& in) const {
    return enabled ? eval_slot<Q, F>(kernel, in) : Metrics{};
  }
  bool same_answers_as(const Gated& o) const noexcept
    requires requires { kernel.same_answers_as(kernel); }
  {
    return enabled == o.enabled && (!enabled || kernel.same_answers_as(o.kernel));
  }
  std::vector<ConfigField> config_fields() const { return kernel.config_fields(); }
  std::vector<std::string> backends() const { return kernel.backends(); }
  std::vector<std::string> provenance() const
    requires requires { kernel.provenance(); }
  {
    return kernel.provenance();
  }
  double lower_bound_s(const Input& in) const
    requires requires { kernel.lower_bound_s(in); }
  {
    return enabled ? kernel.lower_bound_s(in) : 0.0;
  }
};

template <class C>
concept StaticCondition = requires { std::remove_cvref_t<C>::value; } && !std::same_as<std::remove_cvref_t<C>, bool>;

template <class C, class X>
constexpr auto when(C condition, X x) {
  if constexpr (StaticCondition<C>) {
    if constexpr (static_cast<bool>(C::value)) {
      return x;
    } else {
      return Absent{};
    }
  } else {
    static_assert(std::same_as<C, bool>, "costdsl: when() takes a bool, std::bool_constant or Static<0|1>");
    if constexpr (requires { X::node_kind; }) {
      static_assert(X::node_kind == NodeKind::leaf, "costdsl: a run-time when() gates a single leaf");
      return leaf<X::name>(Gated<typename X::kernel_type>{std::move(x.kernel), condition});
    } else {
      return x;  // an input: the gated leaf still takes it and ignores it while off
    }
  }
}

}  // namespace costdsl
