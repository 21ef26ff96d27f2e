#pragma once
// L3 attn_local: attention and its output projection on a GPU holding all heads:
//   attention (kv_cache_append, prefill, decode) → o_proj (n = hidden, k = qo·head_dim)
// With pre_attn_local before it this is attn_block_tp at tp = 1, slot for slot.
#include <cstdint>
#include <string>

#include "costdsl/fixed_string.hpp"
#include "costdsl/form.hpp"
#include "costdsl/inputs.hpp"
#include "costdsl/labeled.hpp"
#include "costdsl/ops/attention/attention.hpp"
#include "costdsl/resolved.hpp"
#include "costdsl/sum.hpp"
#include "costdsl/timing.hpp"
#include "costdsl/ops/attention/body.hpp"
#include "costdsl/worklets/detail/weight_dtype.hpp"
#include "costdsl/worklets/detail/label.hpp"

namespace costdsl::worklets {

template <class Form, FixedString Name = "attn">
class AttnLocal {
 public:
  // Config: the form's hidden, num_qo_heads, num_kv_heads, head_dim, dtype, kv_dtype (and
  // gemm_dtype where the form has one).
  struct Input {
    std::uint64_t batch_tokens = 0;  // rows through o_proj
    ops::AttentionWork attention;
  };

  static constexpr auto resolve_config(const Form& form) {
    const auto hidden = dim<"hidden">(form);
    const auto head_dim = dim<"head_dim">(form);
    const auto num_qo_heads_per_rank = dim<"num_qo_heads">(form);  // local: per rank == full
    const auto num_kv_heads_per_rank = dim<"num_kv_heads">(form);
    const auto o_proj_k = num_qo_heads_per_rank * head_dim;
    COSTDSL_RESOLVED(hidden, head_dim, num_qo_heads_per_rank, num_kv_heads_per_rank, o_proj_k);
  }
  using Resolved = decltype(resolve_config(std::declval<const Form&>()));

  explicit AttnLocal(const Form& form) : form_(form), r_(resolve_config(form)) {}

  const Resolved& resolved() const noexcept { return r_; }

  auto build(const Timing& t) const {
    const auto& v = values(form_);
    const std::string label = detail::worklet_label(
        Name.view(), "AttnLocal", {{"qo", r_.num_qo_heads_per_rank}, {"kv", r_.num_kv_heads_per_rank}});
    return labeled<Name>(label, sum(ops::attention_slots(t, v.dtype, projection_dtypes(form_), v.kv_dtype, r_)));
  }

  auto inputs(const Input& in) const { return nest<Name>(ops::attention_slot_inputs(in.batch_tokens, in.attention)); }

 private:
  Form form_;
  Resolved r_;
};

}  // namespace costdsl::worklets
