#pragma once
// visit_arch(made, f): f over what a family's make(Parallel) returned: the arch itself, or
// the alternative a std::variant of arch types holds (the layout picked the type).
#include <type_traits>
#include <utility>
#include <variant>

namespace costdsl::serve::detail {

template <class T>
inline constexpr bool is_variant_v = false;
template <class... Ts>
inline constexpr bool is_variant_v<std::variant<Ts...>> = true;

template <class Made, class F>
decltype(auto) visit_arch(Made&& made, F&& f) {
  if constexpr (is_variant_v<std::remove_cvref_t<Made>>) {
    return std::visit(std::forward<F>(f), std::forward<Made>(made));
  } else {
    return std::forward<F>(f)(std::forward<Made>(made));
  }
}

}  // namespace costdsl::serve::detail
