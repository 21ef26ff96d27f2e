#pragma once
// COSTDSL_FIELDS: a reflected struct's members, each as (type, name) or (type, name,
// default), declared in order and visitable by name (reflect.hpp: for_each_field,
// reflect_fields, dim<>):
//
//   struct Config { COSTDSL_FIELDS((Dtype, dtype), (Dim, n), (Dim, k, 1)); };
//
// COSTDSL_FIELDS_OF(A, B) reflects a struct composed of reflected bases instead (a model's
// shape, its parallelism and its quantization: deployed.hpp): A's fields, then B's.
//
// It declares the members and a member function whose visitor calls visit("name",
// self.name) for each, in order; the struct stays an aggregate, and structural, so a
// Fixed<value> form still takes it. It replaced Boost.Hana's BOOST_HANA_DEFINE_STRUCT,
// which builds a tuple of compile-time strings and accessors for every struct as it is
// defined: ~0.04 s of g++ front end per struct, ~22 structs in an arch translation unit
// (docs/perf-history.md, "Compile time", ninth session). This expands to plain code and
// instantiates nothing until a field is visited.
#include <cstdint>
#include <string_view>
#include <type_traits>

#include "costdsl/detail/pp_for_each.hpp"

#define COSTDSL_DETAIL_FIELD_DECLARE(field) COSTDSL_DETAIL_FIELD_DECLARE_ field
#define COSTDSL_DETAIL_FIELD_DECLARE_(type, name, ...) type name __VA_OPT__(= __VA_ARGS__);
#define COSTDSL_DETAIL_FIELD_VISIT(field) COSTDSL_DETAIL_FIELD_VISIT_ field
#define COSTDSL_DETAIL_FIELD_VISIT_(type, name, ...) visit(std::string_view(#name), self.name);

// The visitor is a generic lambda returned by a plain member function, not a member
// template: a struct declared inside a function (a local class) may not have those. `each`
// is the macro applied to every entry, in the lambda's body over `self` and `visit`.
#define COSTDSL_DETAIL_FIELD_VISITOR(each, ...)                             \
  constexpr auto costdsl_fields() const noexcept {                          \
    return [](auto& self, auto&& visit) { COSTDSL_DETAIL_PP_FOR_EACH(each, __VA_ARGS__) }; \
  }                                                                         \
  using costdsl_reflected = void

#define COSTDSL_FIELDS(...)                                            \
  COSTDSL_DETAIL_PP_FOR_EACH(COSTDSL_DETAIL_FIELD_DECLARE, __VA_ARGS__) \
  COSTDSL_DETAIL_FIELD_VISITOR(COSTDSL_DETAIL_FIELD_VISIT, __VA_ARGS__)

// Hides the bases' own visitors: the composed struct visits each base's fields in turn.
#define COSTDSL_DETAIL_FIELD_PART(Base) ::costdsl::for_each_field(::costdsl::detail::as_part<Base>(self), visit);
#define COSTDSL_FIELDS_OF(...) COSTDSL_DETAIL_FIELD_VISITOR(COSTDSL_DETAIL_FIELD_PART, __VA_ARGS__)

namespace costdsl {

// A struct whose members COSTDSL_FIELDS declared.
template <class S>
concept Reflected = requires { typename std::remove_const_t<S>::costdsl_reflected; };

// Calls f(name, value&) for each field in declaration order (value const for a const s).
template <Reflected S, class F>
constexpr void for_each_field(S& s, F&& f) {
  s.costdsl_fields()(s, f);
}

namespace detail {
// The integer (or bool) field `name` of a reflected struct, looked up by name: dim<> at
// compile time (form.hpp), a config.json table's defaults at run time (hf_keys.hpp).
struct FieldLookup {
  bool found = false;
  std::uint64_t value = 0;
};
template <Reflected S>
constexpr FieldLookup integer_field(const S& s, std::string_view name) {
  FieldLookup out;
  for_each_field(s, [&](std::string_view n, const auto& v) {
    if constexpr (std::is_integral_v<std::remove_cvref_t<decltype(v)>>)
      if (n == name) out = {true, static_cast<std::uint64_t>(v)};
  });
  return out;
}

// A composed struct's base, as const as the struct.
template <class Base, class S>
constexpr auto& as_part(S& s) noexcept {
  if constexpr (std::is_const_v<S>) {
    return static_cast<const Base&>(s);
  } else {
    return static_cast<Base&>(s);
  }
}
}  // namespace detail

}  // namespace costdsl
