#pragma once
// What an L3 worklet (worklets/<family>_<grain>.hpp) is, as a concept: one sync section,
// made from a form (static Fixed<cfg> or a run-time config):
//
//   W::resolve_config(form)  the partition math, and the only place it lives: every
//                            divisibility rule checked in the earliest phase that can
//                            decide it (static form: a compile error; run-time: ConfigError)
//   W(form), w.resolved()    the worklet and its resolved (per-rank) dims
//   w.build(timing)          its slots, a labeled cost tree
//   w.inputs(W::Input)       their per-call inputs, in build() order: the concept requires
//                            the list to follow build()'s slot list (INV-2, InputsFollowSlots)
//
//   static_assert(WorkletDef<worklets::AttnBlockTp<Fixed<cfg>>, Fixed<cfg>>);
#include <concepts>
#include <utility>

#include "costdsl/concepts.hpp"
#include "costdsl/inputs_follow_slots.hpp"
#include "costdsl/timing.hpp"

namespace costdsl {

template <class W, class Form>
concept WorkletDef = std::constructible_from<W, const Form&> &&
                     requires(const Form& form, const W& w, const Timing& t, const typename W::Input& in) {
                       W::resolve_config(form);
                       w.resolved();
                       { w.build(t) } -> CostNode;
                       w.inputs(in);
                     } &&
                     InputsFollowSlots<decltype(std::declval<const W&>().build(std::declval<const Timing&>())),
                                       decltype(std::declval<const W&>().inputs(
                                           std::declval<const typename W::Input&>()))>;

}  // namespace costdsl
