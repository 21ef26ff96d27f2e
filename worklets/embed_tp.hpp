#pragma once
// L3 embed_tp: the token-embedding gather of one TP group, vocabulary-parallel as the
// frameworks run it (vLLM's and SGLang's VocabParallelEmbedding): each GPU holds
// vocab/tp rows, looks up the tokens that fall in its shard (the others read as zeros)
// and one all-reduce of the batch's hidden rows completes every token.
//   embedding (vocab/tp rows, one output row per new token) → tp_allreduce
// tp == 1 is the local gather with no collective slot.
#include <cstdint>
#include <string>

#include "costdsl/dim_expr.hpp"
#include "costdsl/dtype.hpp"
#include "costdsl/fixed_string.hpp"
#include "costdsl/form.hpp"
#include "costdsl/inputs.hpp"
#include "costdsl/kernel.hpp"
#include "costdsl/kernels/all_reduce.hpp"
#include "costdsl/kernels/embedding.hpp"
#include "costdsl/labeled.hpp"
#include "costdsl/leaf.hpp"
#include "costdsl/resolved.hpp"
#include "costdsl/sum.hpp"
#include "costdsl/timing.hpp"
#include "costdsl/when.hpp"
#include "costdsl/worklets/detail/label.hpp"
#include "costdsl/worklets/detail/vocab_shard.hpp"

namespace costdsl::worklets {

template <class Form, FixedString Name = "embed">
class EmbedTp {
 public:
  // Config: the form's vocab, hidden, tp, dtype.
  struct Input {
    std::uint64_t batch_tokens = 0;
  };

  static constexpr auto resolve_config(const Form& form) {
    const auto vocab = dim<"vocab">(form);
    const auto hidden = dim<"hidden">(form);
    const auto tp = dim<"tp">(form);
    require_nonzero(vocab);
    require_nonzero(tp);
    const auto has_allreduce = greater_than_one(tp);
    const double allreduce_bytes_per_token = double(hidden.value()) * bytes_per_element(values(form).dtype);
    COSTDSL_RESOLVED(vocab, hidden, tp, has_allreduce, allreduce_bytes_per_token);
  }
  using Resolved = decltype(resolve_config(std::declval<const Form&>()));

  explicit EmbedTp(const Form& form) : form_(form), r_(resolve_config(form)) {}

  const Resolved& resolved() const noexcept { return r_; }

  auto build(const Timing& t) const {
    using namespace kernels;
    const Dim rows = detail::vocab_rows_per_rank(r_.vocab, r_.tp);
    return labeled<Name>(
        detail::worklet_label(Name.view(), "EmbedTp", {{"tp", r_.tp}, {"vocab/rank", rows.value}}),
        sum(leaf<"embedding">(Kernel<Embedding>(t, {values(form_).dtype, rows, to_dim(r_.hidden)})),
            when(r_.has_allreduce, leaf<"tp_allreduce">(Kernel<AllReduce>(t, {to_dim(r_.tp)})))));
  }
  auto inputs(const Input& in) const {
    const std::uint64_t m = in.batch_tokens;
    return nest<Name>(costdsl::inputs(
        input<"embedding">(kernels::Embedding::Input{m}),
        when(r_.has_allreduce, input<"tp_allreduce">(kernels::AllReduce::Input{
                                   static_cast<std::uint64_t>(double(m) * r_.allreduce_bytes_per_token)}))));
  }

 private:
  Form form_;
  Resolved r_;
};

}  // namespace costdsl::worklets
