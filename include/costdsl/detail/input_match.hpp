#pragma once
// Whether an input list follows a tree's slot list (INV-2), as plain constants: the same
// facts evaluate()'s diagnostics report (evaluate.hpp, input_check) and the layer concepts
// require (InputsFollowSlots), computed in one place so the two cannot disagree.
#include <array>
#include <cstddef>
#include <span>
#include <string_view>
#include <type_traits>

#include <boost/mp11/list.hpp>

#include "costdsl/inputs.hpp"
#include "costdsl/rank_runs.hpp"
#include "costdsl/slots.hpp"

namespace costdsl::detail {

// A slot takes exactly its kernel's Input; a Fanout takes any contiguous range of its
// child's per-rank input lists (a span, a vector, an array) or their RankRuns.
template <class S, class V>
inline constexpr bool accepts = std::is_same_v<typename entry_value<S>::type, V>;
template <FixedString Path, class R, class V>
inline constexpr bool accepts<FanoutSlot<Path, R>, V> = std::is_convertible_v<const V&, std::span<const R>>;
template <FixedString Path, class R>
inline constexpr bool accepts<FanoutSlot<Path, R>, RankRuns<R>> = true;

template <class Slots, class Ins>
struct input_match {
  static constexpr bool matches = false;  // not an input list at all
};

template <class... S, class... I>
struct input_match<boost::mp11::mp_list<S...>, Inputs<I...>> {
  static constexpr std::size_t n_slots = sizeof...(S), n_inputs = sizeof...(I);
  static constexpr std::size_t n_common = n_slots < n_inputs ? n_slots : n_inputs;
  static constexpr std::array<std::string_view, sizeof...(S)> slot_paths{S::path.view()...};
  static constexpr std::array<std::string_view, sizeof...(I)> input_paths{I::path.view()...};
  // Types are compared only when the counts agree (the packs expand together).
  static constexpr std::array<bool, sizeof...(S)> type_ok = [] {
    if constexpr (sizeof...(S) == sizeof...(I)) {
      return std::array<bool, sizeof...(S)>{accepts<S, typename I::value_type>...};
    } else {
      return std::array<bool, sizeof...(S)>{};
    }
  }();
  static constexpr std::size_t first_path_mismatch = [] {
    for (std::size_t i = 0; i < n_common; ++i)
      if (slot_paths[i] != input_paths[i]) return i;
    return n_common;
  }();
  static constexpr std::size_t first_wrong_type = [] {
    for (std::size_t i = 0; i < n_slots; ++i)
      if (!type_ok[i]) return i;
    return n_slots;
  }();
  static constexpr bool matches =
      n_slots == n_inputs && first_path_mismatch == n_common && first_wrong_type == n_slots;
};

}  // namespace costdsl::detail
