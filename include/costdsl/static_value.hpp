#pragma once
// One way to mix static and dynamic numbers (after CuTe's Int<N>): a value is
// either Static<N> (known to the compiler, checked by static_assert) or a plain
// unsigned integer (known at run time, checked by a costdsl::ConfigError).
// Code is written once against both; `is_static_v` picks the earliest phase
// that can decide a check.
#include <concepts>
#include <cstdint>
#include <type_traits>

namespace costdsl {

template <std::uint64_t V>
struct Static {
  static constexpr std::uint64_t value = V;
  constexpr operator std::uint64_t() const noexcept { return V; }
};

template <class T>
struct is_static : std::false_type {};
template <std::uint64_t V>
struct is_static<Static<V>> : std::true_type {};
template <class T>
inline constexpr bool is_static_v = is_static<std::remove_cvref_t<T>>::value;

// A number that can stand for a dim or a count: Static<N> or an unsigned integer.
template <class T>
concept Number = is_static_v<T> || (std::unsigned_integral<std::remove_cvref_t<T>> &&
                                    !std::same_as<std::remove_cvref_t<T>, bool>);

template <Number T>
constexpr std::uint64_t value_of(const T& v) noexcept {
  return static_cast<std::uint64_t>(v);
}

// A compile-time ratio, for Parallel's overlap.
template <std::uint64_t Num, std::uint64_t Den>
struct Ratio {
  static_assert(Den != 0, "costdsl: a Ratio's denominator must be nonzero");
  static constexpr std::uint64_t num = Num;
  static constexpr std::uint64_t den = Den;
  static constexpr double value = static_cast<double>(Num) / static_cast<double>(Den);
};

template <class T>
struct is_ratio : std::false_type {};
template <std::uint64_t N, std::uint64_t D>
struct is_ratio<Ratio<N, D>> : std::true_type {};

}  // namespace costdsl
