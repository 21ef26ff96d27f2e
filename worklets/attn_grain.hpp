#pragma once
// How a dense decoder's attention is parallel, and the forms its worklets see.
//
//   AttnGrain::tp    heads split tp ways, every GPU holds whole sequences (attn_block_tp);
//   AttnGrain::hptp  heads split tp ways and every sequence's KV hp ways (attn_block_hptp),
//                    with the FFN tensor-parallel over all N = hp × tp GPUs.
//
// KV-head replication (`kv_replicate`) is the other way past tp = num_kv_heads, as vLLM
// and TensorRT-LLM run it: each KV head is copied to tp / num_kv_heads ranks, which then
// project, store and read it redundantly. It is an explicit opt-in because it is the
// baseline hp must beat, not a free choice: the KV cache per GPU stops shrinking with tp.
#include <cstdint>
#include <span>

#include "costdsl/dim_expr.hpp"
#include "costdsl/dtype.hpp"
#include "costdsl/form.hpp"
#include "costdsl/ops/attention/batch.hpp"
#include "costdsl/ops/attention/kv_slices.hpp"
#include "costdsl/static_value.hpp"
#include "costdsl/with.hpp"

namespace costdsl::worklets {

enum class AttnGrain : bool { tp, hptp };

// A static form picks its grain from its hp; a run-time form is tp unless built hptp.
template <class Form>
inline constexpr AttnGrain default_grain = [] {
  if constexpr (is_fixed_v<Form>) {
    return Form::value.hp > 1 ? AttnGrain::hptp : AttnGrain::tp;
  } else {
    return AttnGrain::tp;
  }
}();

namespace detail {
// Whether a config copies its KV heads above tp = num_kv_heads: a dense config opts in
// (its Parallelism's kv_replicate: hp is the other way past it); a MoE frame's shape says
// it always does (replicates_kv_heads), as the frameworks do unasked there (vLLM's
// QKVParallelLinear: num_kv_head_replicas, vllm/model_executor/layers/linear.py).
template <class Config>
constexpr bool replicates_kv(const Config& c) noexcept {
  if constexpr (requires { Config::replicates_kv_heads; }) {
    return Config::replicates_kv_heads;
  } else if constexpr (requires { c.kv_replicate; }) {
    return c.kv_replicate;
  } else {
    return true;  // an attention form of its own (no Parallelism) keeps the frameworks' default
  }
}

// The config with its KV heads replicated up to tp (each rank holds one copy of one head).
template <class Config>
constexpr Config with_replicated_kv(Config c) noexcept {
  if (replicates_kv(c) && c.tp > c.num_kv_heads) c.num_kv_heads = c.tp;
  return c;
}
}  // namespace detail

// The form attention sees: the config's own, or with replicated KV heads where it copies
// them and tp exceeds them (then num_kv_heads must divide tp: every copy serves whole groups).
template <class Form>
constexpr auto attention_form(const Form& form) {
  if constexpr (is_fixed_v<Form>) {
    constexpr auto& c = Form::value;
    if constexpr (detail::replicates_kv(c) && c.tp > c.num_kv_heads)
      (void)(dim<"tp">(form) / dim<"num_kv_heads">(form));
    return Fixed<detail::with_replicated_kv(c)>{};
  } else {
    if (detail::replicates_kv(form) && form.tp > form.num_kv_heads) (void)(dim<"tp">(form) / dim<"num_kv_heads">(form));
    return detail::with_replicated_kv(form);
  }
}

// KV heads held over the tp ranks: the model's, or tp copies where they are replicated.
template <class Form>
constexpr double stored_kv_heads(const Form& form) {
  return values(attention_form(form)).num_kv_heads;
}

// KV cache bytes one token occupies over the whole model, each of `kv_heads` heads once.
template <class Form>
constexpr double kv_bytes_per_token(const Form& form, double kv_heads) {
  const auto& c = values(form);
  return 2.0 * kv_heads * c.head_dim * bytes_per_element(c.kv_dtype) * c.num_layers;
}

// And on one GPU: a token's KV lives on one hp rank, split over its tp ranks' (replicated) heads.
template <class Form>
constexpr double kv_bytes_per_token_per_gpu(const Form& form) {
  const auto& c = values(form);
  return kv_bytes_per_token(form, stored_kv_heads(form)) / (double(c.tp) * c.hp);
}

// A dense arch's attention inputs for one iteration (`tokens` rows through the
// projections): the tp grain takes the collapsed batch; hptp also the decodes' KV
// lengths, `loads`, where both rank-folded slots share one deal of them (empty: each slot
// deals them itself), and `slices`, where the batch is written once for the slots that read
// it (null: the inputs own it).
template <AttnGrain Grain, class Attn, class RankLoad>
auto attention_inputs(const Attn& attn, std::uint64_t tokens, const ops::AttentionWork& w,
                      [[maybe_unused]] const ops::AttentionBatch& it,
                      [[maybe_unused]] std::span<RankLoad> loads,
                      [[maybe_unused]] ops::KvSlices* slices = nullptr) {
  if constexpr (Grain == AttnGrain::hptp) {
    return attn.inputs({tokens, w, it.decode_kv, loads, slices, it.decode_rows});
  } else {
    return attn.inputs({tokens, w});
  }
}

// The form the FFN sees: under hptp, tp over all N = hp × tp GPUs (checked here, so the
// message names both degrees); under tp, the form itself, whose hp must be 1.
template <AttnGrain Grain, class Form>
constexpr auto ffn_form(const Form& form) {
  if constexpr (Grain == AttnGrain::tp) {
    require_nonzero(dim<"hp">(form));
    require_le<"the tp attention grain runs hp 1 (AttnGrain::hptp splits the KV)">(dim<"hp">(form),
                                                                                    sym<"max_hp">(Static<1>{}));
    return form;
  } else {
    (void)(dim<"intermediate">(form) / (dim<"hp">(form) * dim<"tp">(form)));
    constexpr auto over_all_gpus = [](const auto& c) { return with<"hp">(with<"tp">(c, c.tp * c.hp), 1u); };
    if constexpr (is_fixed_v<Form>) {
      return Fixed<over_all_gpus(Form::value)>{};
    } else {
      return over_all_gpus(form);
    }
  }
}

}  // namespace costdsl::worklets
