#pragma once
// The DP-attention + EP MoE frame (L4) that Qwen3-MoE, Mixtral and gpt-oss are instances
// of: attention TP a = tp inside each of dp = ep / tp groups, routed experts EP over all ep
// ranks, the layer stack a repeated period of layers that differ in the span their attention
// reads and, where the family interleaves dense layers, in their feed-forward.
//
//   model  = Sum(Max_dp(embed), period × L/P, Max_dp(lm_head))
//   period = one layer, or Sum(kind_1, ..., kind_K) of them: the period's layers of one kind
//            (span, feed-forward) labeled by it, a Scale of its layer when it holds several
//   layer  = Sum(Max_dp(Sum(attn_block_tp, moe_router_local)), moe_expert_ep)
//            or, with a shared expert, Sum(Max_dp(...), Parallel<9/10>(moe_expert_ep, moe_shared_expert))
//            a linear layer's token mixer gdn_block_tp (Gated DeltaNet) in attn_block_tp's place
//            a dense layer (Layer::moe_layer_step > 1): Max_dp(Sum(attn_block_tp, mlp_block_tp))
//
// A family is a Layer tag: its name, q/k norm, layer pattern (LayerPattern<AttnSpan...>:
// gpt-oss's (sliding, full) pair, Llama-4's (chunked, chunked, chunked, full) and Qwen3.5's
// (linear, linear, linear, full) periods are data, not classes of their own), which layers
// are MoE (Layer::moe_layer_step, config.json's interleave_moe_layer_step: Llama-4 Maverick's
// 2 puts a dense MLP of intermediate_size_mlp on every other layer), whether its
// full-attention layers gate their output (Layer::output_gate), whether its layers have a shared expert (Layer::
// shared_expert, beside the routed ones on a side stream as in the MLA frame), how the
// period reads in the layer label, the weights its layers add, and its config.json rules
// (from_hf).
// MoeConfig<Layer> is its shape; the form's config type says which family the stack is.
//
// TP experts (ExpertGrain::tp, as TensorRT-LLM and vLLM run moe_tp_size = tp): one attention
// group of tp GPUs (ep 1, dp 1), every routed expert split tp ways by its intermediate width
// (moe_expert_tp, an all-reduce after); moe_intermediate % tp == 0 is checked first.
//
// Each DP group runs its own group's batch (a gap between groups is load imbalance);
// the groups run independently until the dispatch all-to-all, so attention and the
// router share one group section. Max_dp is a run-time Fanout (archs/support/dp_groups.hpp):
// the degree dp = ep / tp is data, so one tree type serves every degree. The experts
// are Max-folded over ranks inside their slots.
//
// A dense layer's MLP runs TP over its DP group's tp GPUs on the group's own rows, as the
// attention does (and as the MLA frame's dense layers): TensorRT-LLM's Llama4DecoderLayer
// (tensorrt_llm/_torch/models/modeling_llama.py, PyTorch backend) builds its GatedMLP with
// overridden_tp_size = 1 under enable_attention_dp (its DP groups are one GPU each) and TP
// over all GPUs without it; vLLM's (vllm/model_executor/models/llama4.py) LlamaMLP is TP over
// its DP rank's TP group. SGLang instead gathers every group's rows for a dense MLP TP over
// all GPUs unless --moe-dense-tp-size 1, which this frame does not model.
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

#include "costdsl/archs/support/dp_moe_model.hpp"
#include "costdsl/archs/support/input_scratch.hpp"
#include "costdsl/archs/support/moe_iteration.hpp"
#include "costdsl/deployed.hpp"
#include "costdsl/dim_expr.hpp"
#include "costdsl/dtype.hpp"
#include "costdsl/error.hpp"
#include "costdsl/fields.hpp"
#include "costdsl/fixed_string.hpp"
#include "costdsl/form.hpp"
#include "costdsl/hf_config.hpp"
#include "costdsl/hf_keys.hpp"
#include "costdsl/inputs.hpp"
#include "costdsl/labeled.hpp"
#include "costdsl/parallel.hpp"
#include "costdsl/ops/attention/attention.hpp"
#include "costdsl/scale.hpp"
#include "costdsl/static_value.hpp"
#include "costdsl/sum.hpp"
#include "costdsl/timing.hpp"
#include "costdsl/worklets/attn_block_tp.hpp"
#include "costdsl/worklets/attn_grain.hpp"
#include "costdsl/worklets/detail/weight_dtype.hpp"
#include "costdsl/worklets/embed_tp.hpp"
#include "costdsl/worklets/expert_grain.hpp"
#include "costdsl/worklets/lm_head_tp.hpp"
#include "costdsl/worklets/mlp_block_tp.hpp"
#include "costdsl/worklets/moe_expert_ep.hpp"
#include "costdsl/worklets/moe_expert_tp.hpp"
#include "costdsl/worklets/moe_router_local.hpp"
#include "costdsl/worklets/moe_shared_expert.hpp"

// Declared only: a family with linear layers includes worklets/gdn_block_tp.hpp (its Gated
// DeltaNet kinds and op stay out of every other family's translation units).
namespace costdsl::worklets {
template <class Form, FixedString Name>
class GdnBlockTp;
}  // namespace costdsl::worklets

namespace costdsl::archs {

// deploy(shape, parallelism) found by argument-dependent lookup beside the shapes.
using costdsl::deploy;

// What one layer's attention reads: the whole context; its last sliding_window tokens
// (decode reads at most that many KV tokens, ops::collapse_window; prefill attends to at
// most that many keys per query, the prefill kernel's window); or its own chunk of
// attention_chunk tokens (decode reads the chunk so far, ops::collapse_chunked; prefill is
// costed as a window of attention_chunk keys: exact while a prompt fits one chunk, an upper
// bound past it, where a query sees on average half a chunk); or, linear, none of it: a
// Gated DeltaNet layer (worklets/gdn_block_tp.hpp) carries a fixed recurrent state per
// request instead of a KV cache.
enum class AttnSpan : std::uint8_t { full, sliding, chunked, linear };

// The repeated unit of a layer stack, one span per layer.
template <AttnSpan... Spans>
struct LayerPattern {
  static constexpr std::array<AttnSpan, sizeof...(Spans)> spans{Spans...};
};

// What a layer's feed-forward is: the routed experts (with the family's shared expert), or
// a dense gated MLP of `intermediate` width.
enum class Ffn : std::uint8_t { moe, dense };

// A linear (Gated DeltaNet) layer's head layout, as config.json's linear_num_key_heads,
// linear_key_head_dim, linear_num_value_heads, linear_value_head_dim, linear_conv_kernel_dim.
// Outside the reflected fields, so that families without linear layers leave it 0 unnamed;
// the frame hands each linear block a form of its own (GdnForm) where they are dims.
struct LinearLayout {
  std::uint32_t num_key_heads = 0, key_head_dim = 0, num_value_heads = 0, value_head_dim = 0, conv_kernel_dim = 0;
  friend constexpr bool operator==(const LinearLayout&, const LinearLayout&) = default;
};

// What a linear layer's block (worklets/gdn_block_tp.hpp) reads of the model, under the
// config.json names its divisibility errors then name.
struct GdnForm {
  COSTDSL_FIELDS((std::uint32_t, hidden), (std::uint32_t, linear_num_key_heads), (std::uint32_t, linear_key_head_dim),
                 (std::uint32_t, linear_num_value_heads), (std::uint32_t, linear_value_head_dim),
                 (std::uint32_t, linear_conv_kernel_dim), (std::uint32_t, tp), (Dtype, dtype), (Dtype, gemm_dtype));
  template <class C>
  static constexpr GdnForm of(const C& c) {
    return {c.hidden, c.linear.num_key_heads, c.linear.key_head_dim, c.linear.num_value_heads,
            c.linear.value_head_dim, c.linear.conv_kernel_dim, c.tp, c.dtype, worklets::gemm_weight_dtype(c)};
  }
};
// A static form's GdnForm is static too.
template <class Form>
constexpr auto gdn_form(const Form& form) {
  if constexpr (is_fixed_v<Form>) {
    return Fixed<GdnForm::of(Form::value)>{};
  } else {
    return GdnForm::of(form);
  }
}

// What a DP-attention + EP MoE model is, apart from how it runs: MoeConfig<Layer> deploys
// it (costdsl/deployed.hpp) with a Parallelism (tp: attention TP inside a DP group; ep: the
// expert-parallel ranks, all GPUs; moe_tp) and a Quantization.
template <class Layer>
struct MoeShape {
  using layer = Layer;
  // The frameworks copy KV heads above tp unasked (worklets/attn_grain.hpp).
  static constexpr bool replicates_kv_heads = true;

  COSTDSL_FIELDS((std::uint32_t, hidden), (std::uint32_t, num_qo_heads), (std::uint32_t, num_kv_heads),
                 (std::uint32_t, head_dim), (std::uint32_t, moe_intermediate), (std::uint32_t, num_experts),
                 (std::uint32_t, top_k), (std::uint32_t, vocab), (std::uint32_t, num_layers),
                 (std::uint32_t, sliding_window), (Dtype, dtype), (std::uint32_t, shared_intermediate),
                 (std::uint32_t, attention_chunk), (std::uint32_t, intermediate, 0));
  // shared_intermediate: the shared expert's width (families with Layer::shared_expert; 0
  // otherwise); attention_chunk: the chunk of chunked-attention layers (0 without them);
  // intermediate: the dense layers' MLP width (families with Layer::moe_layer_step > 1).
  // The linear layers' head layout (a pattern with AttnSpan::linear; 0 without them).
  LinearLayout linear{};

  // The config.json keys (hf_keys.hpp) the families share; a family's Layer::hf_keys
  // overrides a row (Mixtral's experts are num_local_experts) or reads an option it has.
  static constexpr std::array hf_keys{
      hf_key("hidden", "hidden_size"), hf_key("num_qo_heads", "num_attention_heads"),
      hf_key("num_kv_heads", "num_key_value_heads").or_field("num_qo_heads"), hf_key("head_dim", "head_dim"),
      hf_key("moe_intermediate", "moe_intermediate_size"), hf_key("num_experts", "num_experts"),
      hf_key("top_k", "num_experts_per_tok"), hf_key("vocab", "vocab_size"), hf_key("num_layers", "num_hidden_layers"),
      not_in_family("sliding_window"), not_in_family("shared_intermediate"), not_in_family("attention_chunk"),
      not_in_family("intermediate")};

  // The table's fields.
  static MoeShape read_hf_keys(const HfConfig& hf) { return read_hf_shape<MoeShape>(hf); }
  // The family's rules, then its table (Layer::from_hf where it has rules of its own).
  static MoeShape from_hf(const HfConfig& hf) {
    if constexpr (requires { Layer::template from_hf<MoeShape>(hf); }) {
      return Layer::template from_hf<MoeShape>(hf);
    } else {
      return read_hf_keys(hf);
    }
  }
};

template <class Layer>
using MoeConfig = Deployed<MoeShape<Layer>>;

template <class Form, worklets::ExpertGrain Grain = worklets::default_expert_grain<Form>>
class MoeStack {
  using Layer = typename std::remove_cvref_t<decltype(values(std::declval<const Form&>()))>::layer;
  static constexpr auto spans = Layer::pattern::spans;
  // MoE on the layers i with (i + 1) % step == 0, dense on the others (interleave_moe_layer_step
  // as HuggingFace, vLLM and TensorRT-LLM read it); 1: every layer MoE.
  static constexpr std::size_t moe_layer_step = [] {
    if constexpr (requires { Layer::moe_layer_step; }) {
      return std::size_t{Layer::moe_layer_step};
    } else {
      return std::size_t{1};
    }
  }();
  static_assert(moe_layer_step >= 1, "Layer::moe_layer_step: 1 (every layer MoE) or more");
  // The repeated unit: the span pattern and the MoE step, the least common multiple of both.
  static constexpr std::size_t period = [] {
    std::size_t p = spans.size();
    while (p % moe_layer_step != 0) p += spans.size();
    return p;
  }();
  static constexpr AttnSpan span_of(std::size_t i) { return spans[i % spans.size()]; }
  static constexpr Ffn ffn_of(std::size_t i) { return (i + 1) % moe_layer_step == 0 ? Ffn::moe : Ffn::dense; }
  // The period's layers by kind (span, feed-forward), in order of first appearance, each
  // with its count (Llama-4 Scout: 3 chunked, 1 full; Maverick: 2 chunked dense, 1 chunked
  // MoE, 1 full MoE): a kind is one subtree, scaled by its count, labeled by its kind. The
  // layers of a period add, so their order does not matter to the time.
  struct LayerKind {
    AttnSpan span;
    Ffn ffn;
    std::uint64_t count;
  };
  static constexpr auto layer_kinds = [] {
    std::array<LayerKind, period> k{};
    std::size_t n = 0;
    for (std::size_t i = 0; i < period; ++i) {
      std::size_t j = 0;
      while (j < n && !(k[j].span == span_of(i) && k[j].ffn == ffn_of(i))) ++j;
      if (j == n) k[n++] = {span_of(i), ffn_of(i), 0};
      ++k[j].count;
    }
    return std::pair{k, n};
  }();
  static constexpr std::size_t n_kinds = layer_kinds.second;
  static constexpr auto kinds = layer_kinds.first;
  // Layers of each feed-forward in a period.
  static constexpr std::uint64_t layers_with(Ffn f) {
    std::uint64_t n = 0;
    for (std::size_t i = 0; i < period; ++i) n += ffn_of(i) == f;
    return n;
  }
  static constexpr bool dense_layers = layers_with(Ffn::dense) > 0;
  static constexpr bool tp_experts = Grain == worklets::ExpertGrain::tp;
  static constexpr bool has_span(AttnSpan span) {
    for (AttnSpan s : spans)
      if (s == span) return true;
    return false;
  }
  static constexpr bool shared_expert = requires { requires Layer::shared_expert; };
  // Full-attention layers whose q projection also yields a sigmoid gate on the attention
  // output (Qwen3-Next, Qwen3.5: attn_output_gate).
  static constexpr bool output_gate = requires { requires Layer::output_gate; };
  // The shared expert: whole on every rank beside EP experts, split tp ways beside TP experts.
  using SharedForm = decltype(worklets::shared_expert_form<tp_experts>(std::declval<const Form&>()));
  struct NoSharedExpert {};
  // Attention above num_kv_heads ranks copies each KV head to tp / num_kv_heads of them, as
  // the frameworks do unasked (worklets::attention_form: a config without kv_replicate
  // always copies): the form attention sees then has tp KV heads, one a rank.
  using AttnForm = decltype(worklets::attention_form(std::declval<const Form&>()));
  using Attn = worklets::AttnBlockTp<AttnForm, "attn", Layer::qk_norm, output_gate>;
  // A kind's token mixer: attention, or a linear layer's Gated DeltaNet block (on its own
  // form: no KV heads to replicate); one per layer kind of the period.
  using GdnBlockForm = decltype(gdn_form(std::declval<const Form&>()));
  template <AttnSpan S>
  using Mixer = std::conditional_t<S == AttnSpan::linear, worklets::GdnBlockTp<GdnBlockForm, "attn">, Attn>;
  template <class Seq>
  struct MixersOf;
  template <std::size_t... I>
  struct MixersOf<std::index_sequence<I...>> {
    using type = std::tuple<Mixer<kinds[I].span>...>;
  };
  using Mixers = typename MixersOf<std::make_index_sequence<n_kinds>>::type;
  using Experts = std::conditional_t<tp_experts, worklets::MoeExpertTp<Form>, worklets::MoeExpertEp<Form>>;
  // A dense layer's MLP, TP over the DP group's tp GPUs (above); a member only where there are dense layers.
  struct NoDenseMlp {};
  using DenseMlp = std::conditional_t<dense_layers, worklets::MlpBlockTp<Form>, NoDenseMlp>;

 public:
  // What inputs() takes (costdsl::DpArch asks for them): an iteration dealt over the DP
  // groups, and the buffers its input lists are built in.
  using DpIteration = MoeIteration;
  using Scratch = InputScratch;

  // The arch's own partition: dp = ep / tp attention groups (TP experts: one group, ep 1,
  // and every expert's intermediate split tp ways, checked before any worklet is built);
  // a pattern of P layers repeats, so P divides num_layers (static: the division fails
  // to compile).
  static constexpr auto resolve_config(const Form& form) {
    // One declaration per variable: each dim has its own type (its name is part of it).
    const auto tp = dim<"tp">(form);
    const auto ep = dim<"ep">(form);
    const auto layers = dim<"num_layers">(form);
    require_nonzero(tp), require_nonzero(ep), require_nonzero(layers);
    // One Parallelism serves every frame: this one has no KV-parallel grain.
    require_le<"the MoE frame splits no sequence's KV (hp 1)">(dim<"hp">(form), sym<"max_hp">(Static<1>{}));
    if constexpr (has_span(AttnSpan::sliding)) require_nonzero(dim<"sliding_window">(form));
    if constexpr (has_span(AttnSpan::chunked)) require_nonzero(dim<"attention_chunk">(form));
    if constexpr (dense_layers) require_nonzero(dim<"intermediate">(form));
    const auto periods = [&] {
      if constexpr (period == 1) {
        return layers;
      } else {
        if (!decltype(layers)::is_static && layers.value() % period != 0)
          throw ConfigError("num_layers " + std::to_string(layers.value()) +
                            (period == 2 ? " is odd: " : " is not a multiple of " + std::to_string(period) + ": ") +
                            std::string(Layer::name) + " repeats " + std::string(Layer::period_rule));
        return layers / sym<Layer::period_name>(Static<period>{});
      }
    }();
    using periods_type = decltype(scale_count(periods));
    struct Resolved {
      std::uint64_t tp, ep, dp;
      periods_type periods;
    };
    if constexpr (tp_experts) {
      require_le<"TP-sharded experts run ep 1 (one attention group)">(ep, sym<"max_ep">(Static<1>{}));
      (void)(dim<"moe_intermediate">(form) / tp);
      if (values(form).moe_tp != 1)
        throw ConfigError("moe_tp " + std::to_string(values(form).moe_tp) +
                          ": TP experts (ep 1) are split over the attention group's tp GPUs already");
      return Resolved{tp.value(), ep.value(), 1, scale_count(periods)};
    } else {
      return Resolved{tp.value(), ep.value(), (ep / tp).value(), scale_count(periods)};
    }
  }
  using Resolved = decltype(resolve_config(std::declval<const Form&>()));

  explicit MoeStack(const Form& form = {})
      : form_(form),
        r_(resolve_config(form)),
        embed_(form),
        attn_(make_attn(form, std::make_index_sequence<n_kinds>{})),
        router_(form),
        experts_(make_experts(form, r_)),
        shared_(make_shared(form)),
        dense_mlp_(make_dense_mlp(form)),
        head_(form) {}

  auto build(const Timing& t) const {
    const auto& c = values(form_);
    const auto layer = [&]<Ffn F>(const auto& attn, std::integral_constant<Ffn, F>) {
      if constexpr (F == Ffn::dense) {
        return dp_groups(r_.dp, sum(attn.build(t), dense_mlp_.build(t)));
      } else if constexpr (shared_expert) {
        return dp_moe_layer(r_.dp, sum(attn.build(t), router_.build(t)),
                            parallel(Ratio<9, 10>{}, experts_.build(t), shared_.build(t)));
      } else {
        return dp_moe_layer(r_.dp, sum(attn.build(t), router_.build(t)), experts_.build(t));
      }
    };
    const auto stack = [&]<std::size_t... I>(std::index_sequence<I...>) {
      if constexpr (period == 1) {
        return layer(std::get<0>(attn_), std::integral_constant<Ffn, kinds[0].ffn>{});
      } else {
        return sum(kind_labeled<kinds[I].span, kinds[I].ffn>(
            run_of<kinds[I].count>(layer(std::get<I>(attn_), std::integral_constant<Ffn, kinds[I].ffn>{})))...);
      }
    };
    return labeled<"model">(
        "model (" + std::string(Layer::name) + ") [tp=" + std::to_string(c.tp) + ", ep=" + std::to_string(c.ep) +
            ", dp=" + std::to_string(r_.dp) + ", layers=" + std::to_string(c.num_layers) +
            ", experts=" + std::to_string(c.num_experts) + ", top_k=" + std::to_string(c.top_k) + "]",
        dp_model(r_.dp, embed_.build(t),
                 labeled<"layer">("layer (" + std::string(Layer::unit) +
                                      (tp_experts ? " TP attention, TP experts)" : " DP attention, EP experts)"),
                                  scale(r_.periods, stack(std::make_index_sequence<n_kinds>{}))),
                 head_.build(t)));
  }

  // Each DP group's rows run its own spine; after the group's all-reduce its tp ranks
  // split the rows (each routes and dispatches its slice); with one group over all the EP
  // ranks every rank gates every row and none is dispatched. Every token is routed once.
  // inputs(it) owns its per-group lists; inputs(it, scratch) borrows the scratch's
  // buffers and allocates nothing once warm (see input_scratch.hpp).
  auto inputs(const MoeIteration& it) const { return inputs_with(it, OwnedGroups{}); }
  auto inputs(const MoeIteration& it, InputScratch& scratch) const { return inputs_with(it, ScratchGroups(scratch)); }

  // KV bytes a token holds: its full-attention layers'. A sliding layer keeps only its last
  // `sliding_window` tokens (vLLM's hybrid KV cache manager; TensorRT-LLM's pool per window
  // size): gpt-oss's is under 1.5% of a 9k-token request's KV, left out of this figure; a
  // chunked layer its current chunk (vLLM's ChunkedLocalAttentionSpec), left out alike; a
  // linear layer none (its state is per request: recurrent_state_bytes_per_request_per_gpu).
  double kv_bytes_per_token() const {
    const auto& c = values(form_);
    std::uint32_t full = 0;
    for (AttnSpan s : spans) full += s == AttnSpan::full;
    return 2.0 * c.num_kv_heads * c.head_dim * bytes_per_element(c.kv_dtype) * (c.num_layers / spans.size() * full);
  }
  // On one GPU: its tp-th of the heads, or its one copy of a replicated head.
  double kv_bytes_per_token_per_gpu() const {
    const double per_gpu = kv_bytes_per_token() / values(form_).tp, heads = values(form_).num_kv_heads;
    return stored_kv_heads() == heads ? per_gpu : per_gpu * stored_kv_heads() / heads;
  }

  // A request's recurrent state on one GPU, held from admission to its end whatever its
  // length: per linear layer, each of the rank's v heads' fp32 head_k_dim × head_v_dim
  // state (Qwen3.5's mamba_ssm_dtype float32) and the conv state, the last
  // linear_conv_kernel_dim − 1 inputs of each of the rank's q | k | v channels (activation
  // dtype). 0 without linear layers.
  double recurrent_state_bytes_per_request_per_gpu() const {
    const auto& c = values(form_);
    std::uint32_t linear = 0;
    for (AttnSpan s : spans) linear += s == AttnSpan::linear;
    if (linear == 0) return 0;
    const LinearLayout& l = c.linear;
    const double tp = c.tp, dk = l.key_head_dim, dv = l.value_head_dim;
    const double state = 4.0 * l.num_value_heads / tp * dk * dv;
    const double channels = (2.0 * l.num_key_heads * dk + double(l.num_value_heads) * dv) / tp;
    const double conv = channels * (l.conv_kernel_dim - 1.0) * bytes_per_element(c.dtype);
    return (state + conv) * (c.num_layers / spans.size() * linear);
  }

  // Weights on one GPU: attention sharded by tp, experts by ep (TP experts: every expert
  // split tp ways), router, norms and what else the family's layers hold (Layer::
  // extra_weights: q/k norm, attention sinks) replicated; the embeddings vocab/tp. With linear
  // layers in the period, a layer's token mixer weighs the period's mean; with dense layers,
  // its feed-forward (experts, shared expert and router, or the dense MLP split tp ways) too.
  double weight_bytes_per_gpu() const {
    const auto& c = values(form_);
    const double h = c.hidden, hd = c.head_dim, tp = c.tp;
    const double kv = stored_kv_heads();  // replicated KV heads counted per copy
    const double gate = output_gate ? c.num_qo_heads * hd * h / tp : 0.0;  // the q projection's gate half
    const double full_attn = h * (c.num_qo_heads + 2.0 * kv) * hd / tp + (c.num_qo_heads * hd / tp) * h + gate;
    const double attn = has_span(AttnSpan::linear) ? mean_mixer_weights(full_attn) : full_attn;
    const double experts = 3.0 * h * c.moe_intermediate * (double(c.num_experts) / (tp_experts ? c.tp : c.ep));
    // The share of a period's layers that are MoE (exactly 1 without dense layers) and dense.
    const double moe = double(layers_with(Ffn::moe)) / period, dense = double(layers_with(Ffn::dense)) / period;
    const double rest = moe * (h * c.num_experts) + 2 * h + Layer::extra_weights(c);  // router, norms, the family's own
    // A shared expert is whole on every rank (split tp ways beside TP experts), quantized as the dense GEMMs.
    const double shared = shared_expert ? 3.0 * h * c.shared_intermediate / (tp_experts ? tp : 1) : 0.0;
    const double dense_mlp = dense_layers ? 3.0 * h * c.intermediate / tp : 0.0;
    return c.num_layers * (bytes_per_element(worklets::gemm_weight_dtype(form_)) * (attn + moe * shared + dense * dense_mlp) +
                           bytes_per_element(worklets::expert_weight_dtype(form_)) * (moe * experts)) +
           bytes_per_element(c.dtype) * (c.num_layers * rest + 2.0 * double(worklets::detail::vocab_rows_per_rank(c.vocab, c.tp)) * h + h);
  }

  const Form& form() const noexcept { return form_; }
  const Resolved& resolved() const noexcept { return r_; }

 private:
  // One attention group over every EP rank (dp 1, ep > 1): after its TP all-reduce every rank
  // holds every token, so each gates them all and the experts combine by one all-reduce
  // (worklets/moe_expert_ep.hpp) instead of slicing the rows and dispatching them.
  static bool replicated_tokens(const Resolved& r) { return !tp_experts && r.dp == 1 && r.ep > 1; }
  static Experts make_experts(const Form& form, const Resolved& r) {
    if constexpr (tp_experts) {
      return Experts(form);
    } else {
      return Experts(form, replicated_tokens(r));
    }
  }

  static DenseMlp make_dense_mlp(const Form& form) {
    if constexpr (dense_layers) {
      return DenseMlp(form);
    } else {
      return {};
    }
  }

  static auto make_shared(const Form& form) {
    if constexpr (shared_expert) {
      return worklets::MoeSharedExpert<SharedForm>(worklets::shared_expert_form<tp_experts>(form));
    } else {
      return NoSharedExpert{};
    }
  }

  // KV heads held over the tp ranks: the model's, or tp copies where they are replicated.
  double stored_kv_heads() const { return worklets::stored_kv_heads(form_); }

  // The token mixer's weights a layer holds on one GPU, averaged over the period: a linear
  // layer's projections (q | k | v | z, b | a, out) split tp ways with its conv taps, and
  // its per-head decay and bias and norm; the others `attn`.
  double mean_mixer_weights(double attn) const {
    const auto& c = values(form_);
    const LinearLayout& l = c.linear;
    const double h = c.hidden, tp = c.tp, dk = l.key_head_dim, dv = l.value_head_dim, hv = l.num_value_heads;
    const double k = l.num_key_heads * dk, v = hv * dv;
    const double linear = (h * (2 * k + 2 * v + 2 * hv) + v * h + (2 * k + v) * l.conv_kernel_dim + 2 * hv) / tp + dv;
    double sum = 0;
    for (AttnSpan s : spans) sum += s == AttnSpan::linear ? linear : attn;
    return sum / spans.size();
  }

  template <std::size_t... I>
  static Mixers make_attn(const Form& form, std::index_sequence<I...>) {
    return {make_mixer<kinds[I].span>(form)...};
  }
  template <AttnSpan S>
  static Mixer<S> make_mixer(const Form& form) {
    if constexpr (S == AttnSpan::linear) {
      return Mixer<S>(gdn_form(form));
    } else {
      return Attn(worklets::attention_form(form), prefill_window(S, values(form)));
    }
  }
  // The keys a prefill query may see: the window, the chunk, or all (0).
  static constexpr std::uint32_t prefill_window(AttnSpan s, const auto& c) {
    return s == AttnSpan::sliding ? c.sliding_window : s == AttnSpan::chunked ? c.attention_chunk : 0;
  }

  // A kind's n layers of a period: the layer, scaled when n > 1.
  template <std::uint64_t N, class Node>
  static auto run_of(Node node) {
    if constexpr (N == 1) {
      return node;
    } else {
      return scale(Static<N>{}, std::move(node));
    }
  }

  // A kind's label: its span ("chunked"), with "_dense" where its layers' feed-forward is a
  // dense MLP ("chunked_dense").
  template <AttnSpan S>
  static constexpr auto span_name() {
    if constexpr (S == AttnSpan::sliding) {
      return FixedString{"sliding"};
    } else if constexpr (S == AttnSpan::chunked) {
      return FixedString{"chunked"};
    } else if constexpr (S == AttnSpan::linear) {
      return FixedString{"linear"};
    } else {
      return FixedString{"full"};
    }
  }
  template <AttnSpan S, Ffn F>
  static constexpr auto kind_name() {
    if constexpr (F == Ffn::dense) {
      return concat<span_name<S>(), FixedString{"_dense"}>();
    } else {
      return span_name<S>();
    }
  }

  template <AttnSpan S, Ffn F, class Node>
  auto kind_labeled(Node node) const {
    const std::string what = [&]() -> std::string {
      if constexpr (S == AttnSpan::sliding) {
        return "window " + std::to_string(values(form_).sliding_window) + " keys";
      } else if constexpr (S == AttnSpan::chunked) {
        return "chunks of " + std::to_string(values(form_).attention_chunk) + " tokens";
      } else if constexpr (S == AttnSpan::linear) {
        return "Gated DeltaNet: a recurrent state per request, no KV cache";
      } else {
        return "whole context";
      }
    }();
    return labeled<kind_name<S, F>()>(std::string(span_name<S>().view()) + " (" + what +
                                          (F == Ffn::dense ? "; dense MLP)" : ")"),
                                      std::move(node));
  }

  template <class Groups>
  auto inputs_with(const MoeIteration& it, Groups groups) const {
    const auto work = dp_work(Layer::name, it, r_.dp, r_.tp, groups, ops::collapse);
    const auto& w = work.groups;
    const auto layer = [&]<AttnSpan S, Ffn F>(const auto& attn, std::integral_constant<AttnSpan, S>,
                                              std::integral_constant<Ffn, F>) {
      // Group g's attention input: its span's view of the group's batch.
      const auto attention = [&](std::size_t g) {
        const auto a = [&] {
          if constexpr (S == AttnSpan::sliding) {
            return ops::collapse_window(it.groups[g], values(form_).sliding_window);
          } else if constexpr (S == AttnSpan::chunked) {
            return ops::collapse_chunked(it.groups[g], values(form_).attention_chunk);
          } else {
            return w[g].attention;
          }
        }();
        return attn.inputs({a.append_tokens, a});
      };
      if constexpr (F == Ffn::dense) {  // the group's rows through its TP MLP
        return costdsl::inputs(groups.fan(w.size(), [&](std::size_t g) {
          return costdsl::inputs(attention(g), dense_mlp_.inputs({w[g].attention.append_tokens}));
        }));
      } else {
        const auto group = [&](std::size_t g) {
          const std::uint64_t rows = w[g].attention.append_tokens;  // TP experts: every rank gates all rows
          return costdsl::inputs(attention(g),
                                 router_.inputs({tp_experts || replicated_tokens(r_) ? rows : w[g].slice}));
        };
        if constexpr (shared_expert) {  // as the MLA frame: every rank over its slice (TP experts: all rows)
          return dp_moe_layer_inputs(groups, work, it.routing, experts_, group,
                                     shared_.inputs({tp_experts ? work.tokens : work.max_slice}));
        } else {
          return dp_moe_layer_inputs(groups, work, it.routing, experts_, group);
        }
      }
    };
    const auto stack = [&]<std::size_t... I>(std::index_sequence<I...>) {
      if constexpr (period == 1) {
        return layer(std::get<0>(attn_), std::integral_constant<AttnSpan, kinds[0].span>{},
                     std::integral_constant<Ffn, kinds[0].ffn>{});
      } else {
        return costdsl::inputs(nest<kind_name<kinds[I].span, kinds[I].ffn>()>(
            layer(std::get<I>(attn_), std::integral_constant<AttnSpan, kinds[I].span>{},
                  std::integral_constant<Ffn, kinds[I].ffn>{}))...);
      }
    };
    return nest<"model">(dp_model_inputs(groups, work, embed_, stack(std::make_index_sequence<n_kinds>{}), head_));
  }

  Form form_;
  Resolved r_;
  worklets::EmbedTp<Form> embed_;
  Mixers attn_;  // one block per layer kind of the period; a sliding (chunked) one's prefill has the window (chunk)
  worklets::MoeRouterLocal<Form> router_;
  Experts experts_;
  [[no_unique_address]] std::conditional_t<shared_expert, worklets::MoeSharedExpert<SharedForm>, NoSharedExpert> shared_;
  [[no_unique_address]] DenseMlp dense_mlp_;
  worklets::LmHeadTp<Form> head_;
};

}  // namespace costdsl::archs

// The run-time forms of one MoE family (EP and TP experts), declared `extern` beside its
// config under COSTDSL_SEPARATE_COMPILATION and defined (prefix empty) once in
// libcostdsl-compiled, from the meson line that lists the family (meson.build, frame_families).
#define COSTDSL_MOE_STACK_INSTANCES(prefix, Config)             \
  prefix template class ::costdsl::archs::MoeStack<Config>; \
  prefix template class ::costdsl::archs::MoeStack<Config, ::costdsl::worklets::ExpertGrain::tp>
