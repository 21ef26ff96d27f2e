#pragma once
// L3 mlp_local: a gated MLP on a GPU holding all of it:
//   post_norm → up_gate_proj (n = 2·I) → activation (SiLU·mul over I) → down_proj (k = I)
// mlp_block_tp at tp = 1 is exactly this, slot for slot.
#include <cstdint>
#include <string>

#include "costdsl/dim_expr.hpp"
#include "costdsl/fixed_string.hpp"
#include "costdsl/form.hpp"
#include "costdsl/inputs.hpp"
#include "costdsl/labeled.hpp"
#include "costdsl/resolved.hpp"
#include "costdsl/sum.hpp"
#include "costdsl/timing.hpp"
#include "costdsl/ops/gated_mlp.hpp"
#include "costdsl/worklets/detail/weight_dtype.hpp"
#include "costdsl/worklets/detail/label.hpp"

namespace costdsl::worklets {

template <class Form, FixedString Name = "mlp">
class MlpLocal {
 public:
  // Config: the form's hidden, intermediate, dtype (and gemm_dtype where the form has one).
  struct Input {
    std::uint64_t batch_tokens = 0;
  };

  static constexpr auto resolve_config(const Form& form) {
    using namespace literals;
    const auto hidden = dim<"hidden">(form);
    const auto intermediate_per_rank = dim<"intermediate">(form);  // local: per rank == full
    const auto up_gate_n = 2_c * intermediate_per_rank;
    COSTDSL_RESOLVED(hidden, intermediate_per_rank, up_gate_n);
  }
  using Resolved = decltype(resolve_config(std::declval<const Form&>()));

  explicit MlpLocal(const Form& form) : form_(form), r_(resolve_config(form)) {}

  const Resolved& resolved() const noexcept { return r_; }

  auto build(const Timing& t) const {
    const std::string label =
        detail::worklet_label(Name.view(), "MlpLocal", {{"intermediate", r_.intermediate_per_rank}});
    return labeled<Name>(label, sum(ops::gated_mlp_slots(t, values(form_).dtype, projection_dtypes(form_), r_)));
  }

  auto inputs(const Input& in) const { return nest<Name>(ops::gated_mlp_slot_inputs(in.batch_tokens)); }

 private:
  Form form_;
  Resolved r_;
};

}  // namespace costdsl::worklets
