#pragma once
// L3 lm_head_tp: the final norm and the vocabulary projection of one TP group, over one
// row per request (only the last position of each sequence is sampled). The projection is
// vocabulary-parallel, as the frameworks run it: each GPU computes the logits of its
// vocab/tp rows and an all-gather assembles every row's whole vocabulary (vLLM's
// ParallelLMHead and LogitsProcessor._gather_logits, vllm/model_executor/layers/
// logits_processor.py; SGLang's LogitsProcessor over its TP group; TensorRT-LLM's LMHead
// with gather_output).
//   final_norm → proj (n = vocab/tp rounded up) → tp_allgather (the logits, activations' dtype)
// tp == 1 is the local projection with no collective slot.
#include <cstdint>
#include <string>

#include "costdsl/dim_expr.hpp"
#include "costdsl/dtype.hpp"
#include "costdsl/fixed_string.hpp"
#include "costdsl/form.hpp"
#include "costdsl/inputs.hpp"
#include "costdsl/kernel.hpp"
#include "costdsl/kernels/all_gather.hpp"
#include "costdsl/kernels/gemm.hpp"
#include "costdsl/kernels/rms_norm.hpp"
#include "costdsl/labeled.hpp"
#include "costdsl/leaf.hpp"
#include "costdsl/resolved.hpp"
#include "costdsl/sum.hpp"
#include "costdsl/timing.hpp"
#include "costdsl/when.hpp"
#include "costdsl/worklets/detail/label.hpp"
#include "costdsl/worklets/detail/vocab_shard.hpp"

namespace costdsl::worklets {

template <class Form, FixedString Name = "lm_head">
class LmHeadTp {
 public:
  // Config: the form's vocab, hidden, tp, dtype.
  struct Input {
    std::uint64_t requests = 0;  // rows that reach the vocabulary projection
  };

  static constexpr auto resolve_config(const Form& form) {
    const auto vocab = dim<"vocab">(form);
    const auto hidden = dim<"hidden">(form);
    const auto tp = dim<"tp">(form);
    require_nonzero(vocab);
    require_nonzero(tp);
    const auto has_allgather = greater_than_one(tp);
    // The gathered logits of one row: every rank's shard, padding included.
    const double allgather_bytes_per_row = double(detail::vocab_rows_per_rank(vocab.value(), tp.value())) *
                                           double(tp.value()) * bytes_per_element(values(form).dtype);
    COSTDSL_RESOLVED(vocab, hidden, tp, has_allgather, allgather_bytes_per_row);
  }
  using Resolved = decltype(resolve_config(std::declval<const Form&>()));

  explicit LmHeadTp(const Form& form) : form_(form), r_(resolve_config(form)) {}

  const Resolved& resolved() const noexcept { return r_; }

  auto build(const Timing& t) const {
    using namespace kernels;
    const Dtype dtype = values(form_).dtype;
    const Dim rows = detail::vocab_rows_per_rank(r_.vocab, r_.tp);
    return labeled<Name>(
        detail::worklet_label(Name.view(), "LmHeadTp", {{"tp", r_.tp}, {"vocab/rank", rows.value}}),
        sum(leaf<"final_norm">(Kernel<RmsNorm>(t, {dtype, to_dim(r_.hidden)})),
            leaf<"proj">(Kernel<Gemm>(t, {dtype, rows, to_dim(r_.hidden)})),
            when(r_.has_allgather, leaf<"tp_allgather">(Kernel<AllGather>(t, {to_dim(r_.tp)})))));
  }
  auto inputs(const Input& in) const {
    const std::uint64_t m = in.requests;
    return nest<Name>(costdsl::inputs(
        input<"final_norm">(kernels::RmsNorm::Input{m}), input<"proj">(kernels::Gemm::Input{m}),
        when(r_.has_allgather, input<"tp_allgather">(kernels::AllGather::Input{
                                   static_cast<std::uint64_t>(double(m) * r_.allgather_bytes_per_row)}))));
  }

 private:
  Form form_;
  Resolved r_;
};

}  // namespace costdsl::worklets
