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

// The field `Name` of a form as a dim symbol, looked up by name (detail::integer_field): at
// compile time for a Fixed form, at build time for a run-time one (a few string compares).
template <FixedString Name, class F>
constexpr auto dim(const F& form) {
  using Config = std::remove_cvref_t<decltype(values(form))>;
  if constexpr (!detail::integer_field(Config{}, Name.view()).found) {  // the field exists or not whatever the values
    return diagnostic::fail<diagnostic::form_has_no_integer_field<Name>, decltype(sym<Name>(std::uint64_t{}))>();
  } else if constexpr (is_fixed_v<F>) {
    return sym<Name>(Static<detail::integer_field(F::value, Name.view()).value>{});
  } else {
    return sym<Name>(detail::integer_field(form, Name.view()).value);
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
