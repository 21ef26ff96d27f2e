#pragma once
// A string usable as a template argument: slot names, labels, dim symbols and
// diagnostic texts travel in types so that mismatches are compile errors.
#include <cstddef>
#include <string_view>

namespace costdsl {

template <std::size_t N>
struct FixedString {
  char data[N + 1]{};

  constexpr FixedString() = default;
  constexpr FixedString(const char (&s)[N + 1]) noexcept {
    for (std::size_t i = 0; i <= N; ++i) data[i] = s[i];
  }

  static constexpr std::size_t size() noexcept { return N; }
  constexpr std::string_view view() const noexcept { return {data, N}; }
  constexpr operator std::string_view() const noexcept { return view(); }

  template <std::size_t M>
  constexpr bool operator==(const FixedString<M>& o) const noexcept {
    return view() == o.view();
  }
};

template <std::size_t N1>
FixedString(const char (&)[N1]) -> FixedString<N1 - 1>;

// a then b ("chunked" "_dense").
template <FixedString A, FixedString B>
constexpr auto concat() noexcept {
  FixedString<A.size() + B.size()> out;
  for (std::size_t i = 0; i < A.size(); ++i) out.data[i] = A.data[i];
  for (std::size_t i = 0; i < B.size(); ++i) out.data[A.size() + i] = B.data[i];
  return out;
}

// a + sep + b, or just the non-empty one when either is empty ("attn" "." "qkv").
template <FixedString A, FixedString B>
constexpr auto join_path() noexcept {
  if constexpr (A.size() == 0) {
    return B;
  } else if constexpr (B.size() == 0) {
    return A;
  } else {
    FixedString<A.size() + 1 + B.size()> out;
    for (std::size_t i = 0; i < A.size(); ++i) out.data[i] = A.data[i];
    out.data[A.size()] = '.';
    for (std::size_t i = 0; i < B.size(); ++i) out.data[A.size() + 1 + i] = B.data[i];
    return out;
  }
}

}  // namespace costdsl
