#pragma once
// L4 Qwen3-MoE (30B-A3B, 235B-A22B): DP attention (attention TP a = tp inside each
// of dp = ep / tp groups) and EP routed experts over all ep ranks.
//
//   model = Sum(Max_dp(embed), layer × L, Max_dp(lm_head))
//   layer = Sum(Max_dp(Sum(attn_block_tp, moe_router_local)), moe_expert_ep)
//
// TP experts (ExpertGrain::tp, as TensorRT-LLM runs moe_tp_size = tp): one attention group of
// tp GPUs (ep 1, dp 1), every routed expert split tp ways by its intermediate width
// (moe_expert_tp, an all-reduce after); moe_intermediate % tp == 0 is checked first.
//
// Each DP group runs its own group's batch (a gap between groups is load imbalance);
// the groups run independently until the dispatch all-to-all, so attention and the
// router share one group section. Max_dp is a run-time Fanout (archs/support/dp_groups.hpp):
// the degree dp = ep / tp is data, so one tree type serves every degree. The experts
// are Max-folded over ranks inside their slots.
#include <algorithm>
#include <cstdint>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "costdsl/archs/support/dp_moe_model.hpp"
#include "costdsl/archs/support/moe_iteration.hpp"
#include "costdsl/dim_expr.hpp"
#include "costdsl/dtype.hpp"
#include "costdsl/error.hpp"
#include "costdsl/fields.hpp"
#include "costdsl/form.hpp"
#include "costdsl/hf_config.hpp"
#include "costdsl/inputs.hpp"
#include "costdsl/labeled.hpp"
#include "costdsl/ops/attention/attention.hpp"
#include "costdsl/ops/moe/routing.hpp"
#include "costdsl/scale.hpp"
#include "costdsl/static_value.hpp"
#include "costdsl/sum.hpp"
#include "costdsl/timing.hpp"
#include "costdsl/worklets/attn_block_tp.hpp"
#include "costdsl/worklets/embed_local.hpp"
#include "costdsl/worklets/expert_grain.hpp"
#include "costdsl/worklets/lm_head_local.hpp"
#include "costdsl/worklets/moe_expert_ep.hpp"
#include "costdsl/worklets/moe_expert_tp.hpp"
#include "costdsl/worklets/moe_router_local.hpp"

namespace costdsl::archs {

struct Qwen3MoeConfig {
  COSTDSL_FIELDS((std::uint32_t, hidden), (std::uint32_t, num_qo_heads),
                 (std::uint32_t, num_kv_heads), (std::uint32_t, head_dim), (std::uint32_t, moe_intermediate),
                 (std::uint32_t, num_experts), (std::uint32_t, top_k), (std::uint32_t, vocab),
                 (std::uint32_t, num_layers), (std::uint32_t, tp), (std::uint32_t, ep), (Dtype, dtype),
                 (Dtype, kv_dtype), (Dtype, gemm_dtype), (Dtype, expert_dtype));

  // tp: attention TP degree inside a DP group; ep: expert-parallel ranks (= all GPUs).
  constexpr Qwen3MoeConfig with_parallel(std::uint32_t tp_degree, std::uint32_t ep_degree) const {
    Qwen3MoeConfig c = *this;
    c.tp = tp_degree;
    c.ep = ep_degree;
    return c;
  }

  // MiniMax-M2 (model_type minimax_m2) is this layer too, under its own keys: experts as
  // num_local_experts of intermediate_size, no shared expert. Its q/k norm over the whole
  // projection and RoPE on rotary_dim of head_dim are costed as Qwen3's per-head norm and
  // full RoPE (leaves of a few µs beside the GEMMs and the experts).
  static Qwen3MoeConfig from_hf(const HfConfig& hf, std::uint32_t tp, std::uint32_t ep) {
    if (hf.dim("decoder_sparse_step", 1) != 1)
      throw DataError(hf.file() + ": decoder_sparse_step " + std::to_string(hf.dim("decoder_sparse_step")) +
                      " is not 1; Qwen3Moe models every layer as MoE");
    const bool minimax = hf.has("model_type") && hf.text("model_type") == "minimax_m2";
    if (minimax && hf.has("shared_intermediate_size") && hf.find("shared_intermediate_size")->json != "0")
      throw DataError(hf.file() + ": shared_intermediate_size " + hf.find("shared_intermediate_size")->json +
                      " is not 0; a shared expert is not modelled in the qwen3_moe family");
    const std::uint32_t hidden = hf.dim("hidden_size"), heads = hf.dim("num_attention_heads");
    const Quantization q = hf.quantization();
    return {hidden,
            heads,
            hf.dim("num_key_value_heads", heads),
            hf.dim("head_dim"),
            hf.dim(minimax ? "intermediate_size" : "moe_intermediate_size"),
            hf.dim(minimax ? "num_local_experts" : "num_experts"),
            hf.dim("num_experts_per_tok"),
            hf.dim("vocab_size"),
            hf.dim("num_hidden_layers"),
            tp,
            ep,
            hf.dtype(),
            q.kv,
            q.gemm,
            q.moe};
  }
};

// Published shapes (data/models/qwen3_*.json are the source of truth; a test checks they agree).
inline constexpr Qwen3MoeConfig qwen3_30b_a3b{
    .hidden = 2048, .num_qo_heads = 32, .num_kv_heads = 4, .head_dim = 128, .moe_intermediate = 768,
    .num_experts = 128, .top_k = 8, .vocab = 151936, .num_layers = 48, .tp = 1, .ep = 1, .dtype = Dtype::bf16,
    .kv_dtype = Dtype::bf16, .gemm_dtype = Dtype::bf16, .expert_dtype = Dtype::bf16};
inline constexpr Qwen3MoeConfig qwen3_235b_a22b{
    .hidden = 4096, .num_qo_heads = 64, .num_kv_heads = 4, .head_dim = 128, .moe_intermediate = 1536,
    .num_experts = 128, .top_k = 8, .vocab = 151936, .num_layers = 94, .tp = 1, .ep = 1, .dtype = Dtype::bf16,
    .kv_dtype = Dtype::bf16, .gemm_dtype = Dtype::bf16, .expert_dtype = Dtype::bf16};


template <class Form, worklets::ExpertGrain Grain = worklets::default_expert_grain<Form>>
class Qwen3Moe {
  static constexpr bool tp_experts = Grain == worklets::ExpertGrain::tp;
  using Experts = std::conditional_t<tp_experts, worklets::MoeExpertTp<Form>, worklets::MoeExpertEp<Form>>;

 public:
  // The arch's own partition: dp = ep / tp attention groups (TP experts: one group, ep 1,
  // and every expert's intermediate split tp ways, checked before any worklet is built).
  static constexpr auto resolve_config(const Form& form) {
    const auto tp = dim<"tp">(form);
    const auto ep = dim<"ep">(form);
    require_nonzero(tp);
    require_nonzero(ep);
    require_nonzero(dim<"num_layers">(form));
    struct Resolved {
      std::uint64_t tp, ep, dp;
    };
    if constexpr (tp_experts) {
      require_le<"TP-sharded experts run ep 1 (one attention group)">(ep, sym<"max_ep">(Static<1>{}));
      (void)(dim<"moe_intermediate">(form) / tp);
      return Resolved{tp.value(), ep.value(), 1};
    } else {
      return Resolved{tp.value(), ep.value(), (ep / tp).value()};
    }
  }
  using Resolved = decltype(resolve_config(std::declval<const Form&>()));

  explicit Qwen3Moe(const Form& form = {})
      : form_(form), r_(resolve_config(form)), embed_(form), attn_(form), router_(form), experts_(form), head_(form) {}

  auto build(const Timing& t) const {
    const auto& c = values(form_);
    return labeled<"model">(
        "model (Qwen3Moe) [tp=" + std::to_string(c.tp) + ", ep=" + std::to_string(c.ep) +
            ", dp=" + std::to_string(r_.dp) + ", layers=" + std::to_string(c.num_layers) +
            ", experts=" + std::to_string(c.num_experts) + ", top_k=" + std::to_string(c.top_k) + "]",
        dp_model(r_.dp, embed_.build(t),
                 labeled<"layer">(tp_experts ? "layer (decoder layer: TP attention, TP experts)"
                                             : "layer (decoder layer: DP attention, EP experts)",
                                  scale(dim<"num_layers">(form_), dp_moe_layer(r_.dp, sum(attn_.build(t), router_.build(t)),
                                                                               experts_.build(t)))),
                 head_.build(t)));
  }

  // Each DP group's rows run its own spine; after the group's all-reduce its tp ranks
  // split the rows (each routes and dispatches its slice). Every token is routed once.
  // inputs(it) owns its per-group lists; inputs(it, scratch) borrows the scratch's
  // buffers and allocates nothing once warm (see input_scratch.hpp).
  auto inputs(const MoeIteration& it) const { return inputs_with(it, OwnedGroups{}); }
  auto inputs(const MoeIteration& it, InputScratch& scratch) const { return inputs_with(it, ScratchGroups(scratch)); }

  // KV cache bytes one token occupies across the model, and on one GPU of its DP group.
  double kv_bytes_per_token() const {
    const auto& c = values(form_);
    return 2.0 * c.num_kv_heads * c.head_dim * bytes_per_element(c.kv_dtype) * c.num_layers;
  }
  double kv_bytes_per_token_per_gpu() const { return kv_bytes_per_token() / values(form_).tp; }

  // Weights on one GPU: attention sharded by tp, experts by ep (TP experts: every expert
  // split tp ways), router and embeddings replicated.
  double weight_bytes_per_gpu() const {
    const auto& c = values(form_);
    const double h = c.hidden, hd = c.head_dim, tp = c.tp;
    const double attn = h * (c.num_qo_heads + 2.0 * c.num_kv_heads) * hd / tp + (c.num_qo_heads * hd / tp) * h;
    const double experts = 3.0 * h * c.moe_intermediate * (double(c.num_experts) / (tp_experts ? c.tp : c.ep));
    const double rest = h * c.num_experts + 2 * h + 2 * hd;  // router, norms (incl. q/k norm)
    return c.num_layers * (bytes_per_element(worklets::gemm_weight_dtype(form_)) * attn +
                           bytes_per_element(worklets::expert_weight_dtype(form_)) * experts) +
           bytes_per_element(c.dtype) * (c.num_layers * rest + 2.0 * c.vocab * h + h);
  }

  const Form& form() const noexcept { return form_; }
  const Resolved& resolved() const noexcept { return r_; }

 private:
  template <class Groups>
  auto inputs_with(const MoeIteration& it, Groups groups) const {
    const auto work = dp_work("Qwen3Moe", it, r_.dp, r_.tp, groups, ops::collapse);
    const auto& w = work.groups;
    const auto group = [&](std::size_t g) {  // TP experts: every rank gates all rows
      const std::uint64_t rows = w[g].attention.append_tokens;
      return costdsl::inputs(attn_.inputs({rows, w[g].attention}), router_.inputs({tp_experts ? rows : w[g].slice}));
    };
    return nest<"model">(
        dp_model_inputs(groups, work, embed_, dp_moe_layer_inputs(groups, work, it.routing, experts_, group), head_));
  }

  Form form_;
  Resolved r_;
  worklets::EmbedLocal<Form> embed_;
  worklets::AttnBlockTp<Form, "attn", worklets::QkNorm::per_head> attn_;
  worklets::MoeRouterLocal<Form> router_;
  Experts experts_;
  worklets::LmHeadLocal<Form> head_;
};

#if defined(COSTDSL_SEPARATE_COMPILATION)
// The run-time form (dims from a config.json) is instantiated once, in
// libcostdsl-compiled (src/archs/qwen3_moe.cpp): a translation unit that evaluates it does not
// generate its code again.
extern template class Qwen3Moe<Qwen3MoeConfig>;
extern template class Qwen3Moe<Qwen3MoeConfig, worklets::ExpertGrain::tp>;
#endif

}  // namespace costdsl::archs
