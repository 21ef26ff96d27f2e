#pragma once
// The dense-then-MoE MLA frame (L4) that DeepSeek-V3 (and Kimi-K2) is an instance of: MLA
// attention (TP over heads inside each of dp = ep / tp groups), num_dense_layers dense
// layers, then MoE layers with EP routed experts and a shared expert on a side stream. A
// family is a Layer tag (its name, HuggingFace names and config.json rules: from_hf) and
// MlaMoeConfig<Layer> its shape; the form's config type says which family the stack is.
//
// KV-parallel decode (hp > 1, Helix for MLA): MLA's one latent KV head cannot be split by
// heads, so attention is split by KV sequence alone: dp = ep / hp groups of hp GPUs, each
// running mla_block_hp (tp 1 inside attention), and the dense MLPs TP over the hp GPUs of
// their group (mlp_block_tp at tp = hp); the MoE stays EP over all ep GPUs. The grain is part
// of the type, as in the dense frame, so hp = 1 stays the tp tree: a static form picks it
// from its hp, a run-time form is tp unless built with AttnGrain::hptp.
//
// TP experts (ExpertGrain::tp, as TensorRT-LLM runs DeepSeek-R1 at moe_tp_size = tp_size 8):
// one attention group of tp GPUs (ep 1, dp 1), every routed expert split tp ways by its
// intermediate width (moe_expert_tp, an all-reduce after), and the shared expert split tp
// ways as the dense MLPs are: its partial output joins the routed experts' in that one
// all-reduce (TensorRT-LLM adds them before it), so it has no collective of its own.
// moe_intermediate % tp == 0 is checked first. The grain is part of the type as the
// attention grain is: a static form with ep 1 over tp > 1 picks it, a run-time form is EP
// unless built with ExpertGrain::tp.
//
//   model       = Sum(Max_dp(embed), dense_layer × D, moe_layer × (L − D), Max_dp(lm_head))
//   dense_layer = Max_dp(Sum(mla_block_tp, mlp_block_tp))
//   moe_layer   = Sum(Max_dp(Sum(mla_block_tp, moe_router_local)),
//                     Parallel<9/10>(moe_expert_ep (dispatch … combine), moe_shared_expert))
//
// Two Scales: the dense and the MoE layers are different subtrees (INV-3). The shared
// expert is launched with the dispatch from the same source (the router's output) and
// joins at the combine, so it overlaps the whole routed path including its all-to-alls
// (a Parallel, measured overlap about 0.9), never a Max. Max_dp is a run-time Fanout
// (archs/support/dp_groups.hpp): dp = ep / tp is data, one tree type serves every degree.
#include <algorithm>
#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "costdsl/archs/support/dp_groups.hpp"
#include "costdsl/archs/support/input_scratch.hpp"
#include "costdsl/archs/support/moe_iteration.hpp"
#include "costdsl/deployed.hpp"
#include "costdsl/dim_expr.hpp"
#include "costdsl/dtype.hpp"
#include "costdsl/error.hpp"
#include "costdsl/fields.hpp"
#include "costdsl/form.hpp"
#include "costdsl/hf_config.hpp"
#include "costdsl/hf_keys.hpp"
#include "costdsl/inputs.hpp"
#include "costdsl/labeled.hpp"
#include "costdsl/ops/attention/dsa.hpp"
#include "costdsl/ops/attention/kv_slices.hpp"
#include "costdsl/ops/attention/mla.hpp"
#include "costdsl/ops/moe/routing.hpp"
#include "costdsl/parallel.hpp"
#include "costdsl/scale.hpp"
#include "costdsl/static_value.hpp"
#include "costdsl/sum.hpp"
#include "costdsl/timing.hpp"
#include "costdsl/worklets/attn_grain.hpp"
#include "costdsl/worklets/embed_tp.hpp"
#include "costdsl/worklets/expert_grain.hpp"
#include "costdsl/worklets/lm_head_tp.hpp"
#include "costdsl/worklets/mla_block_hp.hpp"
#include "costdsl/worklets/mla_block_tp.hpp"
#include "costdsl/worklets/mlp_block_tp.hpp"
#include "costdsl/worklets/moe_expert_ep.hpp"
#include "costdsl/worklets/moe_expert_tp.hpp"
#include "costdsl/worklets/moe_router_local.hpp"
#include "costdsl/worklets/moe_shared_expert.hpp"

namespace costdsl::archs {

// deploy(shape, parallelism) found by argument-dependent lookup beside the shapes.
using costdsl::deploy;

// DeepSeek sparse attention's lightning indexer (GLM-5), as config.json's index_n_heads,
// index_head_dim, index_topk. Outside the reflected fields, so that families without it
// (DeepSeek-V3) leave it 0 unnamed; the frame hands a sparse family's attention block a form
// of its own (DsaForm) where they are dims.
struct IndexerLayout {
  std::uint32_t index_n_heads = 0, index_head_dim = 0, index_topk = 0;
  friend constexpr bool operator==(const IndexerLayout&, const IndexerLayout&) = default;
};

// What a sparse family's attention block (worklets/mla_block_tp.hpp over ops::Dsa) reads of
// the model: MLA's dims and the indexer's, under the config.json names its errors then name.
struct DsaForm {
  COSTDSL_FIELDS((std::uint32_t, hidden), (std::uint32_t, num_heads), (std::uint32_t, q_lora_rank),
                 (std::uint32_t, kv_lora_rank), (std::uint32_t, qk_nope_head_dim), (std::uint32_t, qk_rope_head_dim),
                 (std::uint32_t, v_head_dim), (std::uint32_t, tp), (Dtype, dtype), (Dtype, kv_dtype),
                 (Dtype, gemm_dtype), (std::uint32_t, index_n_heads), (std::uint32_t, index_head_dim),
                 (std::uint32_t, index_topk));
  template <class C>
  static constexpr DsaForm of(const C& c) {
    return {c.hidden, c.num_heads, c.q_lora_rank, c.kv_lora_rank, c.qk_nope_head_dim, c.qk_rope_head_dim,
            c.v_head_dim, c.tp, c.dtype, c.kv_dtype, worklets::gemm_weight_dtype(c), c.indexer.index_n_heads,
            c.indexer.index_head_dim, c.indexer.index_topk};
  }
};

// Whether a family's Layer tag says sparse_attention (true): GLM-5's; false where it has none.
template <class Layer>
inline constexpr bool sparse_attention_v = [] {
  if constexpr (requires { Layer::sparse_attention; }) {
    return bool(Layer::sparse_attention);
  } else {
    return false;
  }
}();

// The attention block's form: the model's own, or (a family with Layer::sparse_attention)
// its DsaForm, static where the model's form is.
template <bool Sparse, class Form>
constexpr auto mla_attn_form(const Form& form) {
  if constexpr (!Sparse) {
    return form;
  } else if constexpr (is_fixed_v<Form>) {
    return Fixed<DsaForm::of(Form::value)>{};
  } else {
    return DsaForm::of(form);
  }
}

// What a dense-then-MoE MLA model is, apart from how it runs: MlaMoeConfig<Layer> deploys it
// (costdsl/deployed.hpp) with a Parallelism (tp: attention TP inside a DP group and the dense
// MLPs'; ep: the expert-parallel ranks, all GPUs; hp: KV-parallel ranks of a DP group, the
// hptp grain with tp 1; hop_b; moe_tp) and a Quantization.
template <class Layer>
struct MlaMoeShape {
  using layer = Layer;

  COSTDSL_FIELDS((std::uint32_t, hidden), (std::uint32_t, num_heads), (std::uint32_t, q_lora_rank),
                 (std::uint32_t, kv_lora_rank), (std::uint32_t, qk_nope_head_dim), (std::uint32_t, qk_rope_head_dim),
                 (std::uint32_t, v_head_dim), (std::uint32_t, intermediate), (std::uint32_t, moe_intermediate),
                 (std::uint32_t, shared_intermediate), (std::uint32_t, num_experts), (std::uint32_t, top_k),
                 (std::uint32_t, vocab), (std::uint32_t, num_layers), (std::uint32_t, num_dense_layers),
                 (Dtype, dtype));
  IndexerLayout indexer{};  // DeepSeek sparse attention's indexer (Layer::sparse_attention; else 0)

  // The config.json keys (hf_keys.hpp), DeepSeek-V3's names; the shared expert's width is
  // the family's to compute (n_shared_experts experts run as one wider MLP).
  static constexpr std::array hf_keys{
      hf_key("hidden", "hidden_size"), hf_key("num_heads", "num_attention_heads"),
      hf_key("q_lora_rank", "q_lora_rank"), hf_key("kv_lora_rank", "kv_lora_rank"),
      hf_key("qk_nope_head_dim", "qk_nope_head_dim"), hf_key("qk_rope_head_dim", "qk_rope_head_dim"),
      hf_key("v_head_dim", "v_head_dim"), hf_key("intermediate", "intermediate_size"),
      hf_key("moe_intermediate", "moe_intermediate_size"), computed("shared_intermediate"),
      hf_key("num_experts", "n_routed_experts"), hf_key("top_k", "num_experts_per_tok"), hf_key("vocab", "vocab_size"),
      hf_key("num_layers", "num_hidden_layers"), hf_key("num_dense_layers", "first_k_dense_replace")};

  // The table's fields.
  static MlaMoeShape read_hf_keys(const HfConfig& hf) { return read_hf_shape<MlaMoeShape>(hf); }
  // The family's rules, then its table and what it computes (Layer::from_hf).
  static MlaMoeShape from_hf(const HfConfig& hf) { return Layer::template from_hf<MlaMoeShape>(hf); }
};

template <class Layer>
using MlaMoeConfig = Deployed<MlaMoeShape<Layer>>;

using worklets::AttnGrain;
using worklets::default_grain;

using worklets::ExpertGrain;

template <class Form, AttnGrain Grain = default_grain<Form>, ExpertGrain Experts = worklets::default_expert_grain<Form>>
class MlaMoeStack {
  using Layer = typename std::remove_cvref_t<decltype(values(std::declval<const Form&>()))>::layer;
  // DeepSeek sparse attention (GLM-5): the attention block runs ops::Dsa on its DsaForm.
  static constexpr bool sparse = sparse_attention_v<Layer>;
  static constexpr bool hp_grain = Grain == AttnGrain::hptp;
  // (hp: resolve_config refuses a sparse family before any block is built.)
  using AttnForm = decltype(mla_attn_form<sparse && !hp_grain>(std::declval<const Form&>()));
  static constexpr bool tp_experts = Experts == ExpertGrain::tp;
  // hp runs MLA at tp 1, so there is no tp to split the experts over.
  static_assert(!(hp_grain && tp_experts), "costdsl: MLA MoE TP experts run with the tp attention grain (AttnGrain::tp)");
  // Under hp the dense MLPs run TP over the hp GPUs of a group (ffn_form: tp × hp, hp 1).
  using FfnForm = decltype(worklets::ffn_form<Grain>(std::declval<const Form&>()));
  using Attn = std::conditional_t<hp_grain, worklets::MlaBlockHp<Form>, worklets::MlaBlockTp<AttnForm>>;
  using RoutedExperts = std::conditional_t<tp_experts, worklets::MoeExpertTp<Form>, worklets::MoeExpertEp<Form>>;

  // The shared expert: whole on every rank beside EP experts, split tp ways beside TP experts.
  using SharedForm = decltype(worklets::shared_expert_form<tp_experts>(std::declval<const Form&>()));

 public:
  // What inputs() takes (costdsl::DpArch asks for them): an iteration dealt over the DP
  // groups, and the buffers its input lists are built in.
  using DpIteration = MoeIteration;
  using Scratch = InputScratch;

  // The arch's own partition: dp = ep / tp attention groups (ep / hp under the hp grain),
  // and the layer split.
  static constexpr auto resolve_config(const Form& form) {
    const auto tp = dim<"tp">(form);
    const auto ep = dim<"ep">(form);
    require_nonzero(tp);
    require_nonzero(ep);
    if constexpr (tp_experts) {  // one group; every expert split tp ways, before any worklet is built
      require_le<"TP-sharded experts run ep 1 (one attention group)">(ep, sym<"max_ep">(Static<1>{}));
      (void)(dim<"moe_intermediate">(form) / tp);
    }
    if constexpr (hp_grain && sparse)
      throw ConfigError(std::string(Layer::name) +
                        ": hp " + std::to_string(values(form).hp) + ": KV-parallel (Helix) decode of DeepSeek sparse "
                        "attention is not modelled; run it at hp 1");
    const auto group = [&] {  // the GPUs of one DP group
      if constexpr (hp_grain) {
        const auto hp = dim<"hp">(form);
        require_nonzero(hp);
        require_le<"MLA has one latent KV head: under hp its attention is split by KV alone, tp must be 1">(
            tp, sym<"max_tp">(Static<1>{}));
        return hp;
      } else {
        return tp;
      }
    }();
    const std::uint64_t dp = [&]() -> std::uint64_t {  // TP experts: one group (ep / tp would not divide)
      if constexpr (tp_experts) {
        if (values(form).moe_tp != 1)
          throw ConfigError("moe_tp " + std::to_string(values(form).moe_tp) +
                            ": TP experts (ep 1) are split over the attention group's tp GPUs already");
        return 1;
      } else {
        return (ep / group).value();
      }
    }();
    const auto dense = dim<"num_dense_layers">(form);
    const auto moe = dim<"num_layers">(form) - dense;  // first_k_dense_replace may not exceed num_layers
    require_nonzero(dense);
    require_nonzero(moe);
    using dense_type = decltype(scale_count(dense));
    using moe_type = decltype(scale_count(moe));
    struct Resolved {
      std::uint64_t tp, ep, dp;
      std::uint64_t group;  // GPUs per DP group: tp, or hp under the hp grain
      dense_type num_dense_layers;
      moe_type num_moe_layers;
    };
    return Resolved{tp.value(), ep.value(), dp, group.value(), scale_count(dense), scale_count(moe)};
  }
  using Resolved = decltype(resolve_config(std::declval<const Form&>()));

  explicit MlaMoeStack(const Form& form = {})
      : form_(form),
        r_(resolve_config(form)),
        embed_(form),
        attn_(attn_form(form)),
        mlp_(worklets::ffn_form<Grain>(form)),
        router_(form),
        experts_(make_experts(form, r_)),
        shared_(worklets::shared_expert_form<tp_experts>(form)),
        head_(form) {}

  auto build(const Timing& t) const {
    const auto& c = values(form_);
    return labeled<"model">(
        "model (" + std::string(Layer::name) + ") [" + (hp_grain ? "hp=" + std::to_string(c.hp) + ", " : std::string()) +
            "tp=" + std::to_string(c.tp) + ", ep=" + std::to_string(c.ep) +
            ", dp=" + std::to_string(r_.dp) + ", layers=" + std::to_string(c.num_dense_layers) + " dense + " +
            std::to_string(value_of(r_.num_moe_layers)) + " moe, experts=" + std::to_string(c.num_experts) +
            ", top_k=" + std::to_string(c.top_k) + "]",
        sum(dp_groups(r_.dp, embed_.build(t)),
            labeled<"dense_layer">("dense_layer (MLA + dense MLP)",
                                   scale(r_.num_dense_layers, dp_groups(r_.dp, sum(attn_.build(t), mlp_.build(t))))),
            labeled<"moe_layer">(tp_experts ? "moe_layer (MLA, TP experts: routed + shared split tp ways, shared on a side stream)"
                                            : "moe_layer (MLA, EP routed experts + shared expert on a side stream)",
                                 scale(r_.num_moe_layers,
                                       sum(dp_groups(r_.dp, sum(attn_.build(t), router_.build(t))),
                                           parallel(Ratio<9, 10>{}, experts_.build(t), shared_.build(t))))),
            dp_groups(r_.dp, head_.build(t))));
  }

  // Each DP group's rows run its own MLA spine; after the group's all-reduce its tp (or
  // hp) ranks split the rows (each routes, dispatches and runs the shared expert on its
  // slice; the busiest slice sets the shared expert's time). Every token is routed once.
  // inputs(it) owns its per-group lists; inputs(it, scratch) borrows the scratch's
  // buffers and allocates nothing once warm (see input_scratch.hpp).
  auto inputs(const MoeIteration& it) const { return inputs_with(it, OwnedGroups{}); }
  auto inputs(const MoeIteration& it, InputScratch& scratch) const { return inputs_with(it, ScratchGroups(scratch)); }

  // KV cache bytes one token occupies: one latent (kv_lora_rank + rope) per layer,
  // shared by all heads. It is NOT split by TP: every rank of a group holds it whole;
  // under hp a token's latent lives on one rank of its group.
  // A sparse family adds each layer's indexer key (fp8 + fp32 scale, ops::dsa_index_key_bytes).
  double kv_bytes_per_token() const {
    const auto& c = values(form_);
    const double latent = double(c.kv_lora_rank + c.qk_rope_head_dim) * bytes_per_element(c.kv_dtype) * c.num_layers;
    if constexpr (sparse) {
      return latent + ops::dsa_index_key_bytes(c.indexer.index_head_dim) * c.num_layers;
    } else {
      return latent;
    }
  }
  double kv_bytes_per_token_per_gpu() const { return kv_bytes_per_token() / values(form_).hp; }

  // Weights on one GPU: attention heads and dense MLPs sharded by tp, routed experts by
  // ep; the latent projections, shared expert and router replicated; the embeddings vocab/tp. TP
  // experts: the routed and the shared experts split tp ways. Under hp
  // every rank absorbs q for all heads (q_b, W_UK whole) but projects out heads / hp
  // (W_UV, o_proj), and the dense MLPs are split hp ways.
  double weight_bytes_per_gpu() const {
    const auto& c = values(form_);
    const double h = c.hidden, tp = c.tp, heads = double(c.num_heads) / tp, heads_out = heads / c.hp;
    const double attn = h * c.q_lora_rank + c.q_lora_rank * heads * (c.qk_nope_head_dim + c.qk_rope_head_dim) +
                        h * (c.kv_lora_rank + c.qk_rope_head_dim) + c.kv_lora_rank * heads * c.qk_nope_head_dim +
                        c.kv_lora_rank * heads_out * c.v_head_dim + heads_out * c.v_head_dim * h;
    const double norms = 2 * h + c.q_lora_rank + c.kv_lora_rank;  // input, post, q_a and kv_a norms
    const double dense = 3.0 * h * c.intermediate / (tp * c.hp);
    const double expert_split = tp_experts ? tp : c.ep, shared_split = tp_experts ? tp : 1;
    const double experts = 3.0 * h * c.moe_intermediate * (double(c.num_experts) / expert_split);
    const double shared = 3.0 * h * c.shared_intermediate / shared_split, router = h * c.num_experts;
    const double moe_layers = c.num_layers - c.num_dense_layers;
    // A sparse family's indexer, whole on every rank: wq_b, wk, weights_proj, the k LayerNorm.
    const IndexerLayout& ix = c.indexer;
    const double indexer =
        sparse ? double(c.q_lora_rank) * ix.index_n_heads * ix.index_head_dim + h * ix.index_head_dim : 0.0;
    const double indexer_16 = sparse ? h * ix.index_n_heads + 2.0 * ix.index_head_dim : 0.0;
    const double gemm = c.num_layers * (attn + indexer) + c.num_dense_layers * dense + moe_layers * shared;
    return bytes_per_element(worklets::gemm_weight_dtype(form_)) * gemm +
           bytes_per_element(worklets::expert_weight_dtype(form_)) * moe_layers * experts +
           bytes_per_element(c.dtype) * (c.num_layers * (norms + indexer_16) + moe_layers * router + 2.0 * double(worklets::detail::vocab_rows_per_rank(c.vocab, c.tp)) * h + h);
  }

  const Form& form() const noexcept { return form_; }
  const Resolved& resolved() const noexcept { return r_; }

 private:
  static AttnForm attn_form(const Form& form) { return mla_attn_form<sparse && !hp_grain>(form); }
  template <class Groups>
  auto inputs_with(const MoeIteration& it, Groups groups) const {
    const auto work = dp_work(Layer::name, it, r_.dp, r_.group, groups, ops::collapse_mla);
    const auto& w = work.groups;
    const auto tokens_of = [&](std::size_t g) { return w[g].attention.append_tokens; };
    // hp: each group's batch written once where its slots read it (the dense and the MoE
    // layers' input lists alike), or owned by the inputs (OwnedGroups gives no place).
    [[maybe_unused]] const std::span<ops::KvSlices> batches =
        hp_grain ? groups.template lasting<ops::KvSlices>(r_.dp) : std::span<ops::KvSlices>{};
    const auto mla = [&](std::size_t g) {
      if constexpr (hp_grain) {
        return attn_.inputs(
            {tokens_of(g), w[g].attention, it.groups[g].decode_kv, batches.empty() ? nullptr : &batches[g],
             it.groups[g].decode_rows});
      } else {
        return attn_.inputs({tokens_of(g), w[g].attention});
      }
    };
    return nest<"model">(costdsl::inputs(
        groups.fan(r_.dp, [&](std::size_t g) { return embed_.inputs({tokens_of(g)}); }),
        nest<"dense_layer">(costdsl::inputs(
            groups.fan(r_.dp, [&](std::size_t g) { return costdsl::inputs(mla(g), mlp_.inputs({tokens_of(g)})); }))),
        nest<"moe_layer">(costdsl::inputs(
            // TP experts: every rank gates and runs its expert shards over all of its group's rows
            groups.fan(r_.dp, [&](std::size_t g) {
              return costdsl::inputs(
                  mla(g), router_.inputs({tp_experts || replicated_tokens(r_) ? tokens_of(g) : w[g].slice}));
            }),
            groups.stored(experts_, {work.tokens, work.max_slice, it.routing}),
            shared_.inputs({tp_experts ? work.tokens : work.max_slice}))),
        groups.fan(r_.dp, [&](std::size_t g) { return head_.inputs({w[g].requests}); })));
  }

  // One tp attention group over every EP rank (dp 1, ep > 1): every rank holds every token
  // after MLA's TP all-reduce, gates them all and combines the routed experts by one
  // all-reduce (worklets/moe_expert_ep.hpp). The shared expert keeps its place beside them.
  static bool replicated_tokens(const Resolved& r) { return !tp_experts && !hp_grain && r.dp == 1 && r.ep > 1; }
  static RoutedExperts make_experts(const Form& form, const Resolved& r) {
    if constexpr (tp_experts) {
      return RoutedExperts(form);
    } else {
      return RoutedExperts(form, replicated_tokens(r));
    }
  }

  Form form_;
  Resolved r_;
  worklets::EmbedTp<Form> embed_;
  Attn attn_;
  worklets::MlpBlockTp<FfnForm> mlp_;
  worklets::MoeRouterLocal<Form> router_;
  RoutedExperts experts_;
  worklets::MoeSharedExpert<SharedForm> shared_;
  worklets::LmHeadTp<Form> head_;
};

}  // namespace costdsl::archs

// The run-time forms of one family (EP experts, the hp grain, TP experts), declared
// `extern` beside its config under COSTDSL_SEPARATE_COMPILATION and defined (prefix empty)
// once in libcostdsl-compiled, from the meson line that lists the family (frame_families).
#define COSTDSL_MLA_MOE_STACK_INSTANCES(prefix, Config)                                               \
  prefix template class ::costdsl::archs::MlaMoeStack<Config>;                                      \
  prefix template class ::costdsl::archs::MlaMoeStack<Config, ::costdsl::worklets::AttnGrain::hptp>; \
  prefix template class ::costdsl::archs::MlaMoeStack<Config, ::costdsl::worklets::AttnGrain::tp,    \
                                                      ::costdsl::worklets::ExpertGrain::tp>
