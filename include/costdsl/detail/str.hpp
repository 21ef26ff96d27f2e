#pragma once
// str(a, b, ...): an error message from text and numbers, for the evaluation headers,
// which stay free of fmt (its parse cost lands in every translation unit that
// includes a model). Integers print in decimal, floating point as the shortest text
// that reads back to the same value (what fmt's "{}" prints), strings as they are.
#include <charconv>
#include <concepts>
#include <string>
#include <string_view>
#include <type_traits>

namespace costdsl::detail {

template <class T>
void append_one(std::string& out, const T& v) {
  if constexpr (std::is_same_v<T, bool>) {
    out += v ? "true" : "false";
  } else if constexpr (std::is_same_v<T, char>) {
    out += v;
  } else if constexpr (std::is_arithmetic_v<T>) {
    char buf[32];
    const auto r = std::to_chars(buf, buf + sizeof buf, v);
    out.append(buf, r.ptr);
  } else if constexpr (std::is_enum_v<T>) {
    out += name(v);  // found by ADL: every costdsl enum has name()
  } else if constexpr (std::is_class_v<T> && std::is_convertible_v<const T&, unsigned long long> &&
                       !std::is_convertible_v<const T&, std::string_view>) {
    append_one(out, static_cast<unsigned long long>(v));  // a Dim or Static<N>: its value
  } else {
    static_assert(std::is_convertible_v<const T&, std::string_view>, "costdsl::detail::str: no text form");
    out += std::string_view(v);
  }
}

template <class... A>
std::string str(const A&... a) {
  std::string out;
  (append_one(out, a), ...);
  return out;
}

}  // namespace costdsl::detail
