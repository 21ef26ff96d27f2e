#pragma once
// Dim expressions: symbols, static literals and + - * / over them.
//
//   using namespace costdsl::literals;
//   auto tp = sym<"tp">(Static<4>{});           // or sym<"tp">(runtime_u32)
//   auto kv = sym<"num_kv_heads">(Static<8>{});
//   auto n  = (qo / tp + 2_c * (kv / tp)) * head_dim;
//
// Every operation is checked: a non-dividing `/`, a negative `-`, and a result
// above 2^32-1 are compile errors when both operands are static (the error names
// the formulas and values) and a costdsl::ConfigError when either is run-time.
// Formulas are compile-time strings, built from the types, so they cost nothing
// at run time.
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "costdsl/detail/diagnostics.hpp"
#include "costdsl/dim.hpp"
#include "costdsl/error.hpp"
#include "costdsl/fixed_string.hpp"
#include "costdsl/static_value.hpp"

namespace costdsl {

inline constexpr std::uint64_t max_dim = std::numeric_limits<std::uint32_t>::max();

// A named symbol: a config field such as num_kv_heads or tp.
template <FixedString Name, Number V>
struct Sym {
  [[no_unique_address]] V v;
  static constexpr bool is_static = is_static_v<V>;
  static constexpr int precedence = 3;
  constexpr std::uint64_t value() const noexcept { return value_of(v); }
};

// A static literal in a formula (2_c).
template <std::uint64_t N>
struct Lit {
  static constexpr bool is_static = true;
  static constexpr int precedence = 3;
  constexpr std::uint64_t value() const noexcept { return N; }
};

// Rendering precedence: atoms 3, * and / 2, + and - 1.
template <char Op, class L, class R>
struct Bin {
  [[no_unique_address]] L l;
  [[no_unique_address]] R r;
  static constexpr bool is_static = L::is_static && R::is_static;
  static constexpr int precedence = (Op == '+' || Op == '-') ? 1 : 2;
  constexpr std::uint64_t value() const noexcept {
    const std::uint64_t a = l.value(), b = r.value();
    if constexpr (Op == '+') return a + b;
    if constexpr (Op == '-') return a - b;
    if constexpr (Op == '*') return a * b;
    if constexpr (Op == '/') return a / b;
  }
};

template <class T>
struct is_dim_expr : std::false_type {};
template <FixedString N, class V>
struct is_dim_expr<Sym<N, V>> : std::true_type {};
template <std::uint64_t N>
struct is_dim_expr<Lit<N>> : std::true_type {};
template <char Op, class L, class R>
struct is_dim_expr<Bin<Op, L, R>> : std::true_type {};

template <class T>
concept DimExpr = is_dim_expr<std::remove_cvref_t<T>>::value;

template <FixedString Name, Number V>
constexpr Sym<Name, V> sym(V v) noexcept {
  return {v};
}

namespace literals {
template <char... Cs>
constexpr auto operator""_c() noexcept {
  constexpr std::uint64_t v = [] {
    std::uint64_t r = 0;
    ((r = r * 10 + static_cast<std::uint64_t>(Cs - '0')), ...);
    return r;
  }();
  return Lit<v>{};
}
}  // namespace literals

// ---- formulas as compile-time strings ------------------------------------
namespace detail {

struct FormulaBuffer {
  char data[480]{};
  std::size_t size = 0;
  constexpr void append(std::string_view s) {
    for (char c : s) data[size++] = c;
  }
  constexpr void append_number(std::uint64_t v) {
    char digits[24]{};
    std::size_t n = 0;
    do {
      digits[n++] = static_cast<char>('0' + v % 10);
      v /= 10;
    } while (v != 0);
    while (n > 0) data[size++] = digits[--n];
  }
};

template <class E>
constexpr void render(FormulaBuffer& out);

template <FixedString N, class V>
constexpr void render_impl(FormulaBuffer& out, Sym<N, V>*) {
  out.append(N.view());
}
template <std::uint64_t N>
constexpr void render_impl(FormulaBuffer& out, Lit<N>*) {
  out.append_number(N);
}
template <char Op, class L, class R>
constexpr void render_impl(FormulaBuffer& out, Bin<Op, L, R>*) {
  constexpr int p = Bin<Op, L, R>::precedence;
  constexpr bool left_parens = L::precedence < p;
  // a-(b-c) and a/(b/c) need their parentheses; a-b-c and a/b/c do not.
  constexpr bool right_parens = R::precedence < p || (R::precedence == p && (Op == '-' || Op == '/'));
  if (left_parens) out.append("(");
  render<L>(out);
  if (left_parens) out.append(")");
  const char op[2] = {Op, 0};
  out.append(op);
  if (right_parens) out.append("(");
  render<R>(out);
  if (right_parens) out.append(")");
}

template <class E>
constexpr void render(FormulaBuffer& out) {
  render_impl(out, static_cast<E*>(nullptr));
}

template <class E>
constexpr FormulaBuffer formula_buffer() {
  FormulaBuffer b;
  render<E>(b);
  return b;
}

}  // namespace detail

// The formula of an expression type, e.g. "(num_qo_heads/tp+2*num_kv_heads/tp)*head_dim".
template <class E>
inline constexpr auto formula_v = [] {
  constexpr detail::FormulaBuffer b = detail::formula_buffer<std::remove_cvref_t<E>>();
  FixedString<b.size> s;
  for (std::size_t i = 0; i < b.size; ++i) s.data[i] = b.data[i];
  return s;
}();

template <DimExpr E>
constexpr std::string_view formula(const E&) noexcept {
  return formula_v<E>.view();
}

// ---- checked operators ---------------------------------------------------
namespace detail {

inline std::string describe_operand(std::string_view formula, std::uint64_t v) {
  return std::string(formula) + " " + std::to_string(v);
}

template <char Op, class L, class R>
constexpr Bin<Op, L, R> checked(const L& l, const R& r) {
  using Result = Bin<Op, L, R>;
  if constexpr (L::is_static && R::is_static) {
    constexpr std::uint64_t a = L{}.value(), b = R{}.value();
    if constexpr (Op == '/') {
      if constexpr (b == 0) {
        return diagnostic::fail<diagnostic::division_by_zero<formula_v<R>, formula_v<L>, a>, Result>();
      } else if constexpr (a % b != 0) {
        return diagnostic::fail<diagnostic::does_not_divide<formula_v<R>, b, formula_v<L>, a>, Result>();
      } else {
        return Result{l, r};
      }
    } else if constexpr (Op == '-' && b > a) {
      return diagnostic::fail<diagnostic::negative_dim<formula_v<L>, a, formula_v<R>, b>, Result>();
    } else if constexpr (Op == '*' && (a != 0 && b > max_dim / a)) {
      return diagnostic::fail<diagnostic::dim_overflows_u32<formula_v<Result>>, Result>();
    } else if constexpr (Op == '+' && a + b > max_dim) {
      return diagnostic::fail<diagnostic::dim_overflows_u32<formula_v<Result>>, Result>();
    } else {
      return Result{l, r};
    }
  } else {
    const std::uint64_t a = l.value(), b = r.value();
    auto lhs = [&] { return describe_operand(formula_v<L>.view(), a); };
    auto rhs = [&] { return describe_operand(formula_v<R>.view(), b); };
    if constexpr (Op == '/') {
      if (b == 0) throw ConfigError(rhs() + " is zero: cannot divide " + lhs() + " by it");
      if (a % b != 0) throw ConfigError(rhs() + " does not divide " + lhs());
    } else if constexpr (Op == '-') {
      if (b > a) throw ConfigError(lhs() + " - " + rhs() + " is negative");
    } else if constexpr (Op == '*') {
      if (a != 0 && b > max_dim / a)
        throw ConfigError(std::string(formula_v<Result>.view()) + " = " + std::to_string(a) + " * " +
                          std::to_string(b) + " overflows 32 bits");
    } else {
      if (a + b > max_dim)
        throw ConfigError(std::string(formula_v<Result>.view()) + " = " + std::to_string(a) + " + " +
                          std::to_string(b) + " overflows 32 bits");
    }
    return Result{l, r};
  }
}

}  // namespace detail

template <DimExpr L, DimExpr R>
constexpr auto operator+(const L& l, const R& r) {
  return detail::checked<'+'>(l, r);
}
template <DimExpr L, DimExpr R>
constexpr auto operator-(const L& l, const R& r) {
  return detail::checked<'-'>(l, r);
}
template <DimExpr L, DimExpr R>
constexpr auto operator*(const L& l, const R& r) {
  return detail::checked<'*'>(l, r);
}
template <DimExpr L, DimExpr R>
constexpr auto operator/(const L& l, const R& r) {
  return detail::checked<'/'>(l, r);
}

// ---- rules that are not arithmetic --------------------------------------
// require_le<"rule">(a, b): a <= b, else a compile error (static) or a ConfigError.
template <FixedString Rule, DimExpr L, DimExpr R>
constexpr void require_le(const L& l, const R& r) {
  if constexpr (L::is_static && R::is_static) {
    constexpr std::uint64_t a = L{}.value(), b = R{}.value();
    if constexpr (a > b) diagnostic::fail<diagnostic::rule_violated<Rule, formula_v<L>, a, formula_v<R>, b>, int>();
  } else {
    if (l.value() > r.value())
      throw ConfigError(std::string(Rule.view()) + ": " +
                        detail::describe_operand(formula_v<L>.view(), l.value()) + " exceeds " +
                        detail::describe_operand(formula_v<R>.view(), r.value()));
  }
}

// require_nonzero: a dim that must be at least 1 (layers, heads, degrees).
template <DimExpr E>
constexpr void require_nonzero(const E& e) {
  if constexpr (E::is_static) {
    if constexpr (E{}.value() == 0) diagnostic::fail<diagnostic::dim_is_zero<formula_v<E>>, int>();
  } else {
    if (e.value() == 0) throw ConfigError(std::string(formula_v<E>.view()) + " is 0; it must be at least 1");
  }
}

// ---- erasing into a Dim ----------------------------------------------------
namespace detail {
template <class E>
void collect_bindings(const E& e, std::vector<std::pair<std::string, std::uint64_t>>& out) {
  if constexpr (requires { e.l; }) {
    collect_bindings(e.l, out);
    collect_bindings(e.r, out);
  } else if constexpr (requires { e.v; }) {
    const std::string name(formula_v<E>.view());
    for (const auto& [n, v] : out)
      if (n == name) return;
    out.emplace_back(name, e.value());
  }
}
}  // namespace detail

// The value with its provenance, as kernel configs and the manifest keep it.
template <DimExpr E>
Dim to_dim(const E& e) {
  std::vector<std::pair<std::string, std::uint64_t>> bindings;
  detail::collect_bindings(e, bindings);
  return Dim{e.value(), std::string(formula_v<E>.view()), std::move(bindings)};
}

}  // namespace costdsl
