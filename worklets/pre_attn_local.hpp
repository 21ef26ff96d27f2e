#pragma once
// L3 pre_attn_local: the smallest local worklet, everything a GPU holding all heads
// runs before its attention kernels:
//   input_norm → qkv_proj (n = (qo + 2·kv)·head_dim) → [q_norm, k_norm] → rope
// No partition and no collective: the section completes on its own GPU.
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
#include "costdsl/ops/attention/body.hpp"
#include "costdsl/worklets/detail/weight_dtype.hpp"
#include "costdsl/worklets/detail/label.hpp"

namespace costdsl::worklets {

template <class Form, FixedString Name = "pre_attn", ops::QkNorm Norm = ops::QkNorm::none>
class PreAttnLocal {
 public:
  // Config: the form's hidden, num_qo_heads, num_kv_heads, head_dim, dtype (and gemm_dtype
  // where the form has one).
  struct Input {
    std::uint64_t batch_tokens = 0;  // Σ append + decodes
  };

  static constexpr auto resolve_config(const Form& form) {
    using namespace literals;
    const auto hidden = dim<"hidden">(form);
    const auto head_dim = dim<"head_dim">(form);
    const auto num_qo_heads_per_rank = dim<"num_qo_heads">(form);  // local: per rank == full
    const auto num_kv_heads_per_rank = dim<"num_kv_heads">(form);
    const auto qkv_n = (num_qo_heads_per_rank + 2_c * num_kv_heads_per_rank) * head_dim;
    COSTDSL_RESOLVED(hidden, head_dim, num_qo_heads_per_rank, num_kv_heads_per_rank, qkv_n);
  }
  using Resolved = decltype(resolve_config(std::declval<const Form&>()));

  explicit PreAttnLocal(const Form& form) : form_(form), r_(resolve_config(form)) {}

  const Resolved& resolved() const noexcept { return r_; }

  auto build(const Timing& t) const {
    const std::string label = detail::worklet_label(
        Name.view(), "PreAttnLocal", {{"qo", r_.num_qo_heads_per_rank}, {"kv", r_.num_kv_heads_per_rank}});
    return labeled<Name>(label, sum(ops::pre_attention_slots<Norm>(t, values(form_).dtype, projection_dtypes(form_), r_)));
  }

  auto inputs(const Input& in) const { return nest<Name>(ops::pre_attention_slot_inputs<Norm>(in.batch_tokens, r_)); }

 private:
  Form form_;
  Resolved r_;
};

}  // namespace costdsl::worklets
