#pragma once
// L3 embed_local: the token-embedding gather on one GPU (one row per new token).
#include <cstdint>
#include <string>

#include "costdsl/dim_expr.hpp"
#include "costdsl/fixed_string.hpp"
#include "costdsl/form.hpp"
#include "costdsl/inputs.hpp"
#include "costdsl/kernel.hpp"
#include "costdsl/kernels/embedding.hpp"
#include "costdsl/labeled.hpp"
#include "costdsl/leaf.hpp"
#include "costdsl/resolved.hpp"
#include "costdsl/timing.hpp"
#include "costdsl/worklets/detail/label.hpp"

namespace costdsl::worklets {

template <class Form, FixedString Name = "embed">
class EmbedLocal {
 public:
  // Config: the form's vocab, hidden, dtype.
  struct Input {
    std::uint64_t batch_tokens = 0;
  };

  static constexpr auto resolve_config(const Form& form) {
    const auto vocab = dim<"vocab">(form);
    const auto hidden = dim<"hidden">(form);
    require_nonzero(vocab);
    COSTDSL_RESOLVED(vocab, hidden);
  }
  using Resolved = decltype(resolve_config(std::declval<const Form&>()));

  explicit EmbedLocal(const Form& form) : form_(form), r_(resolve_config(form)) {}

  const Resolved& resolved() const noexcept { return r_; }

  auto build(const Timing& t) const {
    return labeled<Name>(detail::worklet_label(Name.view(), "EmbedLocal"),
                         leaf<"embedding">(Kernel<kernels::Embedding>(
                             t, {values(form_).dtype, to_dim(r_.vocab), to_dim(r_.hidden)})));
  }
  auto inputs(const Input& in) const {
    return nest<Name>(costdsl::inputs(input<"embedding">(kernels::Embedding::Input{in.batch_tokens})));
  }

 private:
  Form form_;
  Resolved r_;
};

}  // namespace costdsl::worklets
