#pragma once
// Compile-time diagnostics. Each is a class template whose name states the
// user's mistake and whose arguments carry the names and values involved; the
// compiler prints them in "In instantiation of ..." right above the message.
// `fail<D, R>()` instantiates D (firing its static_assert) and returns a dummy R
// so the caller can go on compiling without a cascade of follow-up errors.
#include <cstddef>
#include <cstdint>

#include "costdsl/fixed_string.hpp"

namespace costdsl::diagnostic {

template <auto...>
inline constexpr bool always_false = false;

template <FixedString Divisor, std::uint64_t DivisorValue, FixedString Dividend, std::uint64_t DividendValue>
struct does_not_divide {
  static_assert(always_false<Divisor, DivisorValue, Dividend, DividendValue>,
                "costdsl: a static dim does not divide another; the divisor and dividend (name, value) "
                "are the arguments of does_not_divide<> above");
};

template <FixedString Divisor, FixedString Dividend, std::uint64_t DividendValue>
struct division_by_zero {
  static_assert(always_false<Divisor, Dividend, DividendValue>,
                "costdsl: a static dim is divided by zero; see division_by_zero<divisor, dividend, value> above");
};

template <FixedString Minuend, std::uint64_t MinuendValue, FixedString Subtrahend, std::uint64_t SubtrahendValue>
struct negative_dim {
  static_assert(always_false<Minuend, MinuendValue, Subtrahend, SubtrahendValue>,
                "costdsl: a static dim subtraction goes negative; see negative_dim<> above");
};

template <FixedString Formula>
struct dim_overflows_u32 {
  static_assert(always_false<Formula>,
                "costdsl: a static dim product overflows 32 bits; see dim_overflows_u32<formula> above");
};

template <FixedString Formula>
struct dim_is_zero {
  static_assert(always_false<Formula>, "costdsl: a static dim is 0 but must be at least 1; see dim_is_zero<> above");
};

template <FixedString Rule, FixedString Lhs, std::uint64_t LhsValue, FixedString Rhs, std::uint64_t RhsValue>
struct rule_violated {
  static_assert(always_false<Rule, Lhs, LhsValue, Rhs, RhsValue>,
                "costdsl: a static dim breaks a rule (lhs exceeds rhs); see rule_violated<rule, lhs, value, "
                "rhs, value> above");
};

template <FixedString Field>
struct form_has_no_integer_field {
  static_assert(always_false<Field>,
                "costdsl: dim<name>(form) names no integer field of the form's config (COSTDSL_FIELDS); see "
                "form_has_no_integer_field<name> above");
};

template <FixedString Field>
struct config_has_no_such_field {
  static_assert(always_false<Field>,
                "costdsl: with<name>(config, value) names no field of the config (COSTDSL_FIELDS) that takes the "
                "value; see config_has_no_such_field<name> above");
};

template <class Diagnostic, class Result>
constexpr Result fail() {
  static_assert(sizeof(Diagnostic) > 0);
  return Result{};
}

}  // namespace costdsl::diagnostic
