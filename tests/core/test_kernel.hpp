#pragma once
// A synthetic slot kernel for core tests: metrics are affine in the input, so
// every fold is easy to predict by hand.
#include <string>
#include <vector>

#include "costdsl/concepts.hpp"
#include "costdsl/config_field.hpp"

namespace costdsl::testing {

struct TokensInput {
  double tokens = 0;
};

struct AffineKernel {
  static constexpr std::string_view kind = "affine";
  using Input = TokensInput;
  double base_s = 0, per_token_s = 0, flops_per_token = 0;
  Coverage flags = Coverage::none;
  std::uint8_t backend = 0;

  Metrics eval(const Input& in) const {
    if (in.tokens == 0) return Metrics{};
    return Metrics{base_s + per_token_s * in.tokens, flops_per_token * in.tokens, 2 * flops_per_token * in.tokens,
                   1e-3 * in.tokens, flags, backend};
  }
  std::vector<ConfigField> config_fields() const {
    return {{"base_s", base_s}, {"per_token_s", per_token_s}, {"flops_per_token", flops_per_token}};
  }
  std::vector<std::string> backends() const { return {"synthetic"}; }
};

// A second kernel type with another Input, to test type mismatches.
struct RowsInput {
  unsigned rows = 0;
};
struct RowsKernel {
  static constexpr std::string_view kind = "rows";
  using Input = RowsInput;
  double per_row_s = 1e-6;
  Metrics eval(const Input& in) const { return Metrics{per_row_s * in.rows, 0, 8.0 * in.rows, 0, Coverage::none, 0}; }
  std::vector<ConfigField> config_fields() const { return {{"per_row_s", per_row_s}}; }
  std::vector<std::string> backends() const { return {"synthetic"}; }
};

}  // namespace costdsl::testing
