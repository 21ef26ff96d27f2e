#pragma once
// One definition, two forms. A worklet or arch takes its config either as a
// plain value (run time: read from a config.json) or wrapped as Fixed<value>
// (static: a compile-time constant). dim<"name">(form) reads the field as a
// dim symbol: Sym<"name", Static<v>> from a Fixed form, Sym<"name", uint64_t>
// otherwise. Every check downstream then happens in the earliest phase that
// can decide it, through the one code path of dim_expr.hpp.
//
//   constexpr Llama3Shape llama3_70b{...};
//   Llama3<Fixed<deploy(llama3_70b, {.tp = 8})>>{};             // static: tp 16 does not compile
//   Llama3<Llama3Config>{Llama3Config::from_hf(hf, {.tp = 8})};  // run time: tp 16 throws ConfigError
#include <cstdint>
#include <type_traits>
#include <utility>

#include "costdsl/detail/diagnostics.hpp"
#include "costdsl/dim_expr.hpp"
#include "costdsl/fields.hpp"
#include "costdsl/static_value.hpp"

namespace costdsl {

template <auto Value>
struct Fixed {
  static constexpr auto value = Value;
};

template <class T>
struct is_fixed : std::false_type {};
template <auto V>
struct is_fixed<Fixed<V>> : std::true_type {};
template <class T>
inline constexpr bool is_fixed_v = is_fixed<std::remove_cvref_t<T>>::value;

// The config value behind a form.
template <class F>
constexpr const auto& values(const F& form) noexcept {
  if constexpr (is_fixed_v<F>) {
    return F::value;
  } else {
    return form;
  }
}

namespace detail {
// The integer (or bool) field `Name` of a reflected config, looked up by name: at compile
// time for a Fixed form, at build time for a run-time one (a few string compares).
struct FieldLookup {
  bool found = false;
  std::uint64_t value = 0;
};
template <FixedString Name, class S>
constexpr FieldLookup find_dim_field(const S& s) {
  FieldLookup out;
  for_each_field(s, [&](std::string_view name, const auto& v) {
    if constexpr (std::is_integral_v<std::remove_cvref_t<decltype(v)>>)
      if (name == Name.view()) out = {true, static_cast<std::uint64_t>(v)};
  });
  return out;
}
}  // namespace detail

// The field `Name` of a form as a dim symbol.
template <FixedString Name, class F>
constexpr auto dim(const F& form) {
  using Config = std::remove_cvref_t<decltype(values(form))>;
  if constexpr (!detail::find_dim_field<Name>(Config{}).found) {  // the field exists or not whatever the values
    return diagnostic::fail<diagnostic::form_has_no_integer_field<Name>, decltype(sym<Name>(std::uint64_t{}))>();
  } else if constexpr (is_fixed_v<F>) {
    return sym<Name>(Static<detail::find_dim_field<Name>(F::value).value>{});
  } else {
    return sym<Name>(detail::find_dim_field<Name>(form).value);
  }
}

// A condition on a dim as a static or run-time bool, for when(): a static
// expression gives std::bool_constant, a run-time one a bool.
template <DimExpr E>
constexpr auto greater_than_one(const E& e) {
  if constexpr (E::is_static) {
    return std::bool_constant<(E{}.value() > 1)>{};
  } else {
    return e.value() > 1;
  }
}

}  // namespace costdsl
