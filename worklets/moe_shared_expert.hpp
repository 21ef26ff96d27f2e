#pragma once
// L3 moe_shared_expert (local): a dense gated MLP every token passes through next to
// the routed experts (DeepSeek-V3; Qwen3-MoE has none). Replicated on every rank, so
// no partition and no collective:
//   up_gate_proj (n = 2·shared_intermediate, k = hidden) → activation → down_proj (n = hidden)
// It runs on a side stream launched with the routed path, so the wrapping arch
// composes it as parallel(Ratio<9, 10>{}, routed, shared) (a Parallel, not a Max:
// two different works on one device; measured overlap about 0.9).
#include <cstdint>
#include <string>

#include "costdsl/dim_expr.hpp"
#include "costdsl/dtype.hpp"
#include "costdsl/fixed_string.hpp"
#include "costdsl/form.hpp"
#include "costdsl/inputs.hpp"
#include "costdsl/kernel.hpp"
#include "costdsl/kernels/gemm.hpp"
#include "costdsl/kernels/silu_and_mul.hpp"
#include "costdsl/labeled.hpp"
#include "costdsl/leaf.hpp"
#include "costdsl/resolved.hpp"
#include "costdsl/sum.hpp"
#include "costdsl/timing.hpp"
#include "costdsl/worklets/detail/label.hpp"
#include "costdsl/worklets/detail/weight_dtype.hpp"

namespace costdsl::worklets {

template <class Form, FixedString Name = "shared_expert">
class MoeSharedExpert {
 public:
  // Config: the form's hidden, shared_intermediate (n_shared_experts · moe_intermediate), dtype (and
  // gemm_dtype where the form has one: the shared expert is quantized like the dense layers).
  struct Input {
    std::uint64_t batch_tokens = 0;  // the rank's own rows
  };

  static constexpr auto resolve_config(const Form& form) {
    using namespace literals;
    const auto hidden = dim<"hidden">(form);
    const auto shared_intermediate = dim<"shared_intermediate">(form);
    require_nonzero(shared_intermediate);
    const auto up_gate_n = 2_c * shared_intermediate;
    COSTDSL_RESOLVED(hidden, shared_intermediate, up_gate_n);
  }
  using Resolved = decltype(resolve_config(std::declval<const Form&>()));

  explicit MoeSharedExpert(const Form& form) : form_(form), r_(resolve_config(form)) {}

  const Resolved& resolved() const noexcept { return r_; }

  auto build(const Timing& t) const {
    using namespace kernels;
    const Dtype dtype = values(form_).dtype;
    // Its input comes from the MoE block's norm, down_proj's from its own SiLU·mul.
    const ops::ProjectionDtypes proj = projection_dtypes(form_);
    const std::string label =
        detail::worklet_label(Name.view(), "MoeSharedExpert, local", {{"intermediate", r_.shared_intermediate}});
    return labeled<Name>(
        label,
        sum(leaf<"up_gate_proj">(Kernel<Gemm>(t, {proj.weights, to_dim(r_.up_gate_n), to_dim(r_.hidden), proj.from_norm})),
            leaf<"activation">(Kernel<SiluAndMul>(t, {dtype, to_dim(r_.shared_intermediate)})),
            leaf<"down_proj">(Kernel<Gemm>(
                t, {proj.weights, to_dim(r_.hidden), to_dim(r_.shared_intermediate), proj.from_activation}))));
  }

  auto inputs(const Input& in) const {
    const std::uint64_t m = in.batch_tokens;
    return nest<Name>(costdsl::inputs(input<"up_gate_proj">(kernels::Gemm::Input{m}),
                                      input<"activation">(kernels::SiluAndMul::Input{m}),
                                      input<"down_proj">(kernels::Gemm::Input{m})));
  }

 private:
  Form form_;
  Resolved r_;
};

// The form a shared expert sees in an MoE frame: whole on every rank beside EP experts;
// split tp ways beside TP experts (shared_intermediate / tp, checked here so the message
// names both).
template <bool SplitTp, class Form>
constexpr auto shared_expert_form(const Form& form) {
  if constexpr (!SplitTp) {
    return form;
  } else {
    (void)(dim<"shared_intermediate">(form) / dim<"tp">(form));
    if constexpr (is_fixed_v<Form>) {
      return Fixed<[] {
        auto c = Form::value;
        c.shared_intermediate /= c.tp;
        return c;
      }()>{};
    } else {
      Form c = form;
      c.shared_intermediate /= c.tp;
      return c;
    }
  }
}

}  // namespace costdsl::worklets
