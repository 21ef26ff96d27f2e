#pragma once
// L1 merge_attn_states: the exact softmax merge of partial attention outputs (FlashInfer
// merge_states, vLLM merge_attn_states). Each of num_states partials of a token and head
// comes with its log-sum-exp; the merge rescales each by exp(lse_i − max) and sums. Run
// after the HP all-to-all of KV-parallel decode (states = hp; 1 state is a copy). A memory-bound
// num_states-input add; no table measures it, so it is timed on the residual-add curve.
#include <array>
#include <string>
#include <vector>

#include "costdsl/detail/str.hpp"
#include "costdsl/dim.hpp"
#include "costdsl/dtype.hpp"
#include "costdsl/kernel_def.hpp"
#include "costdsl/kernels/detail/compiled_once.hpp"
#include "costdsl/reflect.hpp"
#include "costdsl/token_axis.hpp"

namespace costdsl::kernels {

struct MergeAttnStates {
  static constexpr std::string_view kind = "merge_attn_states";
  static constexpr Family family = Family::memory;

  struct Config {
    COSTDSL_FIELDS((Dtype, dtype), (Dim, num_heads), (Dim, head_dim), (Dim, num_states));
  };
  struct Input {
    COSTDSL_FIELDS((std::uint64_t, tokens));
  };
  static constexpr std::array<std::string_view, 1> axes{"tokens"};

  static std::array<double, 1> point(const Config&, const Input& in) { return {double(in.tokens)}; }

  // A multiply-add per partial output element (the per-(token, head, state) exps are
  // head_dim times fewer).
  static double flops(const Config& c, const Input& in) {
    return 2.0 * double(in.tokens) * double(c.num_heads) * double(c.head_dim) * double(c.num_states);
  }
  // Read num_states partial rows and their fp32 LSEs, write one row, per token and head.
  static double bytes(const Config& c, const Input& in) {
    const double rows = double(in.tokens) * double(c.num_heads), s = double(c.num_states), d = double(c.head_dim);
    return bytes_per_element(c.dtype) * rows * d * (s + 1) + bytes_per_element(Dtype::fp32) * rows * s;
  }

  static Metrics roofline(const Roofline& rf, const Config& c, const Input& in) {
    return rf.memory_bound(flops(c, in), bytes(c, in), ElementwiseKind::residual_add);
  }
  static double lower_bound_s(const Roofline& rf, const Config& c, const Input& in) {
    return rf.lower_bound_s(flops(c, in), bytes(c, in), Dtype::fp32);
  }

  static std::vector<Input> sweep(const Config&) {
    std::vector<Input> grid;
    for (std::uint32_t t : token_axis) grid.push_back({t});
    return grid;
  }
  static std::vector<std::string> default_backends() { return {"flashinfer", "vllm", "trtllm"}; }

  static void validate(const Config& c) {
    if (c.num_heads == 0 || c.num_heads > 4096)
      throw ConfigError(costdsl::detail::str("merge_attn_states: num_heads ", c.num_heads.value, " must be in 1..4096"));
    if (c.head_dim == 0 || c.head_dim > 4096)
      throw ConfigError(costdsl::detail::str("merge_attn_states: head_dim ", c.head_dim.value, " must be in 1..4096"));
    if (c.num_states == 0 || c.num_states > 65536)
      throw ConfigError(
          costdsl::detail::str("merge_attn_states: num_states ", c.num_states.value, " must be in 1..65536"));
  }
};

}  // namespace costdsl::kernels

COSTDSL_KERNEL_COMPILED_ONCE(MergeAttnStates);
