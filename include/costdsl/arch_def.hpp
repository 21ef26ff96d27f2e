#pragma once
// What an L4 arch (archs/<family>.hpp) is, as concepts: a model wired from worklets,
// made from a form (static Fixed<cfg> or a run-time config), with the memory facts a
// serving simulator sizes its KV cache by.
//
//   A(form), a.form()                 the arch and its form (every worklet's checks ran)
//   a.build(timing)                   the whole model's cost tree
//   a.kv_bytes_per_token()            KV of one token over the whole model (each head once)
//   a.kv_bytes_per_token_per_gpu()    and on one GPU, under the arch's parallelism
//   a.weight_bytes_per_gpu()          weights resident on one GPU
//
// and its inputs, one of two ways:
//   DenseArch  a.inputs(ops::AttentionBatch): the batch whole
//   DpArch     a.resolved().dp DP-attention groups; a.inputs(A::DpIteration, A::Scratch&):
//              the batch dealt over them (archs::BatchFeed deals it), input lists built
//              in the scratch's buffers; the arch names both types, so the core needs
//              nothing from archs/
// Either way the inputs follow the built tree's slot list (INV-2, InputsFollowSlots).
#include <concepts>
#include <cstdint>
#include <utility>

#include "costdsl/concepts.hpp"
#include "costdsl/inputs_follow_slots.hpp"
#include "costdsl/ops/attention/batch.hpp"
#include "costdsl/timing.hpp"

namespace costdsl {

template <class A>
concept ArchDef = requires(const A& a, const Timing& t) {
  a.form();
  { a.build(t) } -> CostNode;
  { a.kv_bytes_per_token() } -> std::convertible_to<double>;
  { a.kv_bytes_per_token_per_gpu() } -> std::convertible_to<double>;
  { a.weight_bytes_per_gpu() } -> std::convertible_to<double>;
};

template <class A>
concept DpArch = ArchDef<A> && requires {
  typename A::DpIteration;
  typename A::Scratch;
} && requires(const A& a, const typename A::DpIteration& it, typename A::Scratch& scratch) {
  { a.resolved().dp } -> std::convertible_to<std::uint64_t>;
  a.inputs(it, scratch);
} && InputsFollowSlots<decltype(std::declval<const A&>().build(std::declval<const Timing&>())),
                       decltype(std::declval<const A&>().inputs(std::declval<const typename A::DpIteration&>(),
                                                                std::declval<typename A::Scratch&>()))>;

template <class A>
concept DenseArch = ArchDef<A> && !DpArch<A> && requires(const A& a, const ops::AttentionBatch& batch) {
  a.inputs(batch);
} && InputsFollowSlots<decltype(std::declval<const A&>().build(std::declval<const Timing&>())),
                       decltype(std::declval<const A&>().inputs(std::declval<const ops::AttentionBatch&>()))>;

}  // namespace costdsl
