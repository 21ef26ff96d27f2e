#pragma once
// L3 moe_router_local: the MoE entry on one rank, before the dispatch collective.
//   post_norm (rms_norm over hidden) → router (logits GEMM + softmax/top-k: one fixed sequence)
// No partition: the router weights are replicated, every rank gates its own rows.
#include <cstdint>
#include <string>

#include "costdsl/dim_expr.hpp"
#include "costdsl/dtype.hpp"
#include "costdsl/fixed_string.hpp"
#include "costdsl/form.hpp"
#include "costdsl/inputs.hpp"
#include "costdsl/kernel.hpp"
#include "costdsl/kernels/moe_router.hpp"
#include "costdsl/kernels/rms_norm.hpp"
#include "costdsl/labeled.hpp"
#include "costdsl/leaf.hpp"
#include "costdsl/resolved.hpp"
#include "costdsl/sum.hpp"
#include "costdsl/timing.hpp"
#include "costdsl/worklets/detail/label.hpp"

namespace costdsl::worklets {

template <class Form, FixedString Name = "router">
class MoeRouterLocal {
 public:
  // Config: the form's hidden, num_experts, top_k, dtype.
  struct Input {
    std::uint64_t batch_tokens = 0;  // rows this rank gates
  };

  static constexpr auto resolve_config(const Form& form) {
    const auto hidden = dim<"hidden">(form);
    const auto num_experts = dim<"num_experts">(form);
    const auto top_k = dim<"top_k">(form);
    require_nonzero(top_k);
    require_le<"top_k may not exceed num_experts">(top_k, num_experts);
    COSTDSL_RESOLVED(hidden, num_experts, top_k);
  }
  using Resolved = decltype(resolve_config(std::declval<const Form&>()));

  explicit MoeRouterLocal(const Form& form) : form_(form), r_(resolve_config(form)) {}

  const Resolved& resolved() const noexcept { return r_; }

  auto build(const Timing& t) const {
    using namespace kernels;
    const Dtype dtype = values(form_).dtype;
    const std::string label =
        detail::worklet_label(Name.view(), "MoeRouterLocal", {{"experts", r_.num_experts}, {"top_k", r_.top_k}});
    return labeled<Name>(
        label, sum(leaf<"post_norm">(Kernel<RmsNorm>(t, {dtype, to_dim(r_.hidden)})),
                   leaf<"router">(Kernel<MoeRouter>(
                       t, {dtype, to_dim(r_.hidden), to_dim(r_.num_experts), to_dim(r_.top_k)}))));
  }

  auto inputs(const Input& in) const {
    return nest<Name>(costdsl::inputs(input<"post_norm">(kernels::RmsNorm::Input{in.batch_tokens}),
                                      input<"router">(kernels::MoeRouter::Input{in.batch_tokens})));
  }

 private:
  Form form_;
  Resolved r_;
};

}  // namespace costdsl::worklets
