#pragma once
// One definition, two forms. A worklet or arch takes its config either as a
// plain value (run time: read from a config.json) or wrapped as Fixed<value>
// (static: a compile-time constant). dim<"name">(form) reads the field as a
// dim symbol: Sym<"name", Static<v>> from a Fixed form, Sym<"name", uint64_t>
// otherwise. Every check downstream then happens in the earliest phase that
// can decide it, through the one code path of dim_expr.hpp.
//
//   constexpr Llama3Config llama3_70b{...};
//   llama3(timing, Fixed<llama3_70b.with_tp(8)>{});   // static: tp 16 does not compile
//   llama3(timing, Llama3Config::from_json(...));      // run time: tp 16 throws ConfigError
#include <cstdint>
#include <type_traits>
#include <utility>

#include <boost/hana/at_key.hpp>
#include <boost/hana/string.hpp>

#include "costdsl/dim_expr.hpp"
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
template <FixedString Name, std::size_t... I>
constexpr auto hana_key(std::index_sequence<I...>) {
  return boost::hana::string<Name.data[I]...>{};
}
template <FixedString Name, class S>
constexpr auto field_value(const S& s) {
  return boost::hana::at_key(s, hana_key<Name>(std::make_index_sequence<Name.size()>{}));
}
}  // namespace detail

// The field `Name` of a form as a dim symbol.
template <FixedString Name, class F>
constexpr auto dim(const F& form) {
  if constexpr (is_fixed_v<F>) {
    constexpr std::uint64_t v = detail::field_value<Name>(F::value);
    return sym<Name>(Static<v>{});
  } else {
    return sym<Name>(static_cast<std::uint64_t>(detail::field_value<Name>(form)));
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
