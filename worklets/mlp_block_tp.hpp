#pragma once
// L3 mlp_block_tp: one TP group's gated MLP, ending at the TP all-reduce.
//   post_norm → up_gate_proj (n = 2·I/tp) → activation (SiLU·mul over I/tp) → down_proj (k = I/tp) → tp_allreduce
// tp == 1 is exactly mlp_local (the same slot builders) with no collective slot.
#include <cstdint>
#include <string>

#include "costdsl/dim_expr.hpp"
#include "costdsl/dtype.hpp"
#include "costdsl/fixed_string.hpp"
#include "costdsl/form.hpp"
#include "costdsl/inputs.hpp"
#include "costdsl/kernel.hpp"
#include "costdsl/kernels/all_reduce.hpp"
#include "costdsl/labeled.hpp"
#include "costdsl/leaf.hpp"
#include "costdsl/resolved.hpp"
#include "costdsl/sum.hpp"
#include "costdsl/timing.hpp"
#include "costdsl/when.hpp"
#include "costdsl/ops/gated_mlp.hpp"
#include "costdsl/worklets/detail/weight_dtype.hpp"
#include "costdsl/worklets/detail/label.hpp"

namespace costdsl::worklets {

template <class Form, FixedString Name = "mlp">
class MlpBlockTp {
 public:
  // Config: the form's hidden, intermediate, tp, dtype (and gemm_dtype where the form has one).
  struct Input {
    std::uint64_t batch_tokens = 0;
  };

  static constexpr auto resolve_config(const Form& form) {
    using namespace literals;
    const auto hidden = dim<"hidden">(form);
    const auto tp = dim<"tp">(form);
    require_nonzero(tp);
    const auto intermediate_per_rank = dim<"intermediate">(form) / tp;
    const auto up_gate_n = 2_c * intermediate_per_rank;
    const auto has_allreduce = greater_than_one(tp);
    const double allreduce_bytes_per_token = double(hidden.value()) * bytes_per_element(values(form).dtype);
    COSTDSL_RESOLVED(hidden, tp, intermediate_per_rank, up_gate_n, has_allreduce, allreduce_bytes_per_token);
  }
  using Resolved = decltype(resolve_config(std::declval<const Form&>()));

  explicit MlpBlockTp(const Form& form) : form_(form), r_(resolve_config(form)) {}

  const Resolved& resolved() const noexcept { return r_; }

  auto build(const Timing& t) const {
    using namespace kernels;
    const Dtype dtype = values(form_).dtype;
    const std::string label = detail::worklet_label(
        Name.view(), "MlpBlockTp", {{"tp", r_.tp}, {"intermediate/rank", r_.intermediate_per_rank}});
    return labeled<Name>(
        label, sum(ops::gated_mlp_slots(t, dtype, projection_dtypes(form_), r_),
                              when(r_.has_allreduce, leaf<"tp_allreduce">(Kernel<AllReduce>(t, {to_dim(r_.tp)})))));
  }

  auto inputs(const Input& in) const {
    const std::uint64_t m = in.batch_tokens;
    return nest<Name>(costdsl::inputs(
        ops::gated_mlp_slot_inputs(m),
        when(r_.has_allreduce,
             input<"tp_allreduce">(kernels::AllReduce::Input{
                 static_cast<std::uint64_t>(double(m) * r_.allreduce_bytes_per_token)}))));
  }

 private:
  Form form_;
  Resolved r_;
};

}  // namespace costdsl::worklets
