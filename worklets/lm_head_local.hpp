#pragma once
// L3 lm_head_local: the final norm and the vocabulary projection on one GPU,
// over one row per request (only the last position of each sequence is sampled).
#include <cstdint>
#include <string>

#include "costdsl/dim_expr.hpp"
#include "costdsl/dtype.hpp"
#include "costdsl/fixed_string.hpp"
#include "costdsl/form.hpp"
#include "costdsl/inputs.hpp"
#include "costdsl/kernel.hpp"
#include "costdsl/kernels/gemm.hpp"
#include "costdsl/kernels/rms_norm.hpp"
#include "costdsl/labeled.hpp"
#include "costdsl/leaf.hpp"
#include "costdsl/resolved.hpp"
#include "costdsl/sum.hpp"
#include "costdsl/timing.hpp"
#include "costdsl/worklets/detail/label.hpp"

namespace costdsl::worklets {

template <class Form, FixedString Name = "lm_head">
class LmHeadLocal {
 public:
  // Config: the form's vocab, hidden, dtype.
  struct Input {
    std::uint64_t requests = 0;  // rows that reach the vocabulary projection
  };

  static constexpr auto resolve_config(const Form& form) {
    const auto vocab = dim<"vocab">(form);
    const auto hidden = dim<"hidden">(form);
    require_nonzero(vocab);
    COSTDSL_RESOLVED(vocab, hidden);
  }
  using Resolved = decltype(resolve_config(std::declval<const Form&>()));

  explicit LmHeadLocal(const Form& form) : form_(form), r_(resolve_config(form)) {}

  const Resolved& resolved() const noexcept { return r_; }

  auto build(const Timing& t) const {
    using namespace kernels;
    const Dtype dtype = values(form_).dtype;
    return labeled<Name>(detail::worklet_label(Name.view(), "LmHeadLocal"),
                         sum(leaf<"final_norm">(Kernel<RmsNorm>(t, {dtype, to_dim(r_.hidden)})),
                             leaf<"proj">(Kernel<Gemm>(t, {dtype, to_dim(r_.vocab), to_dim(r_.hidden)}))));
  }
  auto inputs(const Input& in) const {
    return nest<Name>(costdsl::inputs(input<"final_norm">(kernels::RmsNorm::Input{in.requests}),
                                      input<"proj">(kernels::Gemm::Input{in.requests})));
  }

 private:
  Form form_;
  Resolved r_;
};

}  // namespace costdsl::worklets
