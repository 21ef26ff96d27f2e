#pragma once
// Struct reflection for kernel Configs and Inputs (COSTDSL_FIELDS, fields.hpp): the
// manifest, describe(), the CLI flags and the profile-table columns all come
// from the field names and types, so no file keeps a hand-written field list.
//
//   struct Config { COSTDSL_FIELDS((Dtype, dtype), (Dim, n), (Dim, k)); };
#include <charconv>
#include <cstdint>
#include <string>
#include <string_view>
#include <system_error>
#include <type_traits>
#include <vector>

#include "costdsl/concepts.hpp"
#include "costdsl/config_field.hpp"
#include "costdsl/dim.hpp"
#include "costdsl/dtype.hpp"
#include "costdsl/fields.hpp"

namespace costdsl {

template <Reflected S>
std::vector<std::string> field_names() {
  std::vector<std::string> out;
  const S s{};
  for_each_field(s, [&](std::string_view name, const auto&) { out.emplace_back(name); });
  return out;
}


namespace detail {
template <class T>
auto to_config_value(const T& v) -> decltype(ConfigField{}.value) {
  if constexpr (std::is_same_v<T, Dim>) {
    return v;
  } else if constexpr (std::is_same_v<T, Dtype>) {
    return std::string(name(v));
  } else if constexpr (std::is_same_v<T, std::string>) {
    return v;
  } else if constexpr (std::is_same_v<T, bool>) {
    return std::string(v ? "true" : "false");
  } else if constexpr (std::is_arithmetic_v<T>) {
    return static_cast<double>(v);
  } else if constexpr (std::is_enum_v<T>) {
    return std::string(name(v));
  } else {
    return std::vector<std::string>(v.begin(), v.end());
  }
}
}  // namespace detail

template <class S>
std::vector<ConfigField> reflect_fields(const S& s) {
  std::vector<ConfigField> out;
  for_each_field(s, [&](std::string_view n, const auto& v) { out.push_back({std::string(n), detail::to_config_value(v)}); });
  return out;
}

// A field's value as text (profile-table keys, CLI echo): dims and numbers in
// decimal, dtypes and enums by name.
template <class T>
std::string field_text(const T& v) {
  if constexpr (std::is_same_v<T, Dim>) {
    return std::to_string(v.value);
  } else if constexpr (std::is_same_v<T, Dtype>) {
    return std::string(name(v));
  } else if constexpr (std::is_same_v<T, std::string>) {
    return v;
  } else if constexpr (std::is_same_v<T, bool>) {
    return v ? "1" : "0";
  } else if constexpr (std::is_integral_v<T>) {
    return std::to_string(v);
  } else if constexpr (std::is_enum_v<T>) {
    return std::string(name(v));
  } else {
    static_assert(std::is_same_v<T, Dim>, "costdsl: field type has no text form");
  }
}

// The inverse of field_text for a profile-table key: false where the text is no value
// of the field's type (or the type has no parser: an enum without enum_values).
template <class T>
bool parse_field_text(std::string_view text, T& v) {
  const auto integer = [&](auto& out) {
    const auto r = std::from_chars(text.data(), text.data() + text.size(), out);
    return r.ec == std::errc{} && r.ptr == text.data() + text.size();
  };
  if constexpr (std::is_same_v<T, Dim>) {
    std::uint64_t x = 0;
    if (!integer(x)) return false;
    v = Dim(x);
    return true;
  } else if constexpr (std::is_same_v<T, Dtype>) {
    for (const Dtype d : all_dtypes)
      if (name(d) == text) return v = d, true;
    return false;
  } else if constexpr (std::is_same_v<T, std::string>) {
    v = std::string(text);
    return true;
  } else if constexpr (std::is_same_v<T, bool>) {
    if (text != "0" && text != "1") return false;
    v = text == "1";
    return true;
  } else if constexpr (std::is_integral_v<T>) {
    return integer(v);
  } else if constexpr (requires { enum_values(v); }) {  // an enum that lists its values (ADL)
    for (const T e : enum_values(v))
      if (name(e) == text) return v = e, true;
    return false;
  } else {
    return false;
  }
}

// Is the field numeric in a profile table (integer column) or text (dtype, names)?
template <class T>
inline constexpr bool is_numeric_field_v = std::is_same_v<T, Dim> || (std::is_integral_v<T> && !std::is_same_v<T, bool>);

}  // namespace costdsl
