#pragma once
// Run-time degree → static template parameter. A DP arch fans out one Max child per
// DP group, so its degree is part of the tree type; a degree read at run time picks
// one of a closed set of instantiations here:
//
//   const Metrics m = with_dp<1, 2, 4, 8, 16>(cfg.ep / cfg.tp, [&]<std::size_t DP>() {
//     const Qwen3Moe<Qwen3MoeConfig, DP> arch(cfg);
//     return evaluate(arch.build(t), arch.inputs(it));
//   });
//
// Every instantiation must return the same type; an unsupported degree is a ConfigError.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>

#include "costdsl/costdsl.hpp"
#include "costdsl/error.hpp"

namespace costdsl::archs {

template <std::size_t... Supported, class F>
decltype(auto) with_dp(std::uint64_t dp, F&& f) {
  static_assert(sizeof...(Supported) > 0, "costdsl: with_dp needs at least one supported degree");
  constexpr std::size_t degrees[] = {Supported...};
  using R = decltype(f.template operator()<degrees[0]>());
  static_assert((std::is_same_v<R, decltype(f.template operator()<Supported>())> && ...),
                "costdsl: with_dp needs the same return type for every DP degree");
  auto unsupported = [&] {
    std::string list;
    for (std::size_t d : degrees) list += (list.empty() ? "" : ", ") + std::to_string(d);
    return ConfigError("dp " + std::to_string(dp) + " is not a supported DP degree (supported: " + list + ")");
  };
  if constexpr (std::is_void_v<R>) {
    if (!((dp == Supported ? (f.template operator()<Supported>(), true) : false) || ...)) throw unsupported();
  } else {
    std::optional<R> r;
    ((dp == Supported ? (r.emplace(f.template operator()<Supported>()), true) : false) || ...);
    if (!r) throw unsupported();
    return R(std::move(*r));
  }
}

namespace detail {
// "dp0", "dp1", ...: the Labeled name of DP child I.
template <std::size_t I>
constexpr auto dp_name() {
  constexpr std::size_t digits = I < 10 ? 1 : I < 100 ? 2 : 3;
  static_assert(I < 1000);
  FixedString<2 + digits> s;
  s.data[0] = 'd';
  s.data[1] = 'p';
  std::size_t v = I;
  for (std::size_t d = digits; d > 0; --d, v /= 10) s.data[1 + d] = static_cast<char>('0' + v % 10);
  return s;
}
}  // namespace detail

// max_over(labeled<"dp0">(make(0)), ..., labeled<"dp{DP-1}">(make(DP-1))): one Max
// child per DP group, each with its own group's batch.
template <std::size_t DP, class F>
auto dp_fanout(F&& make) {
  return [&]<std::size_t... I>(std::index_sequence<I...>) {
    return max_over(labeled<detail::dp_name<I>()>(std::string(detail::dp_name<I>().view()) + " (DP group " +
                                                      std::to_string(I) + " of " + std::to_string(DP) + ")",
                                                  make(std::integral_constant<std::size_t, I>{}))...);
  }(std::make_index_sequence<DP>{});
}

// The matching inputs: each group's slot inputs nested under "dp<I>".
template <std::size_t DP, class F>
auto dp_inputs(F&& make) {
  return [&]<std::size_t... I>(std::index_sequence<I...>) {
    return costdsl::inputs(nest<detail::dp_name<I>()>(make(std::integral_constant<std::size_t, I>{}))...);
  }(std::make_index_sequence<DP>{});
}

}  // namespace costdsl::archs
