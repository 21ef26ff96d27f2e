#pragma once
// with<"name">(config, value): the config with one reflected field (COSTDSL_FIELDS) set, the
// one way to change a field of a config, a constant expression where the value is one:
//
//   Llama3<Fixed<with<"num_layers">(deploy(llama3_70b, {.tp = 8}), 2)>>   // a two-layer 70B
//
// A name that is no field of the config taking the value does not compile.
#include <string_view>
#include <type_traits>

#include "costdsl/detail/diagnostics.hpp"
#include "costdsl/fields.hpp"
#include "costdsl/fixed_string.hpp"

namespace costdsl {

namespace detail {
template <FixedString Name, class V, class S>
constexpr bool has_settable_field(const S& s) {
  bool found = false;
  for_each_field(s, [&](std::string_view name, const auto& f) {
    if constexpr (std::is_convertible_v<V, std::remove_cvref_t<decltype(f)>>)
      if (name == Name.view()) found = true;
  });
  return found;
}
}  // namespace detail

template <FixedString Name, Reflected S, class V>
constexpr S with(S config, const V& value) {
  if constexpr (!detail::has_settable_field<Name, V>(S{})) {
    return diagnostic::fail<diagnostic::config_has_no_such_field<Name>, S>();
  } else {
    for_each_field(config, [&](std::string_view name, auto& f) {
      using F = std::remove_cvref_t<decltype(f)>;
      if constexpr (std::is_convertible_v<V, F>)
        if (name == Name.view()) f = static_cast<F>(value);
    });
    return config;
  }
}

}  // namespace costdsl
