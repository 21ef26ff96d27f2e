#pragma once
// Dims: a number with optional provenance (the formula it came from and the
// values of its symbols), e.g. qkv n = (num_qo_heads/tp+2*num_kv_heads/tp)*head_dim.
//
// Dims are written once as expressions over symbols (dim_expr.hpp) whose values
// are Static<N> or run-time integers. The expression checks divisibility and
// 32-bit overflow in the earliest phase that can decide; what a kernel config
// keeps is the erased `Dim` below: value + formula + bindings, compared and
// hashed by value only.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace costdsl {

struct Dim {
  std::uint64_t value = 0;
  std::string formula;  // empty for a plain number
  std::vector<std::pair<std::string, std::uint64_t>> bindings;

  Dim() = default;
  Dim(std::uint64_t v) : value(v) {}  // NOLINT: a plain number is a dim without provenance
  Dim(std::uint64_t v, std::string f, std::vector<std::pair<std::string, std::uint64_t>> b)
      : value(v), formula(std::move(f)), bindings(std::move(b)) {}

  constexpr operator std::uint64_t() const noexcept { return value; }  // NOLINT
  // Equality (and ordering) go through the value: provenance never changes identity.
};

}  // namespace costdsl
