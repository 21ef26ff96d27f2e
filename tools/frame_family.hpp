#pragma once
// A family built on one of the shared frames (archs/frames/), registered for the CLI from its
// config type alone: its names come from its Layer tag, how it opens from its frame. The
// generated tools/<stem>_family.cpp of each meson frame_families line holds
//
//   COSTDSL_CLI_FAMILY(llama3) = frame_family<archs::Llama3Config>();
//
// Dense stacks take tp, hp (the KV-parallel grain above 1) and KV-head replication; MoE
// stacks take tp and ep, TP experts where ep 1 spans tp > 1 GPUs; MLA MoE stacks take tp, ep
// and hp (MLA's KV-parallel grain; not with sparse attention), TP experts as the MoE stacks do.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "costdsl/archs/frames/dense_stack.hpp"
#include "costdsl/archs/frames/mla_moe_stack.hpp"
#include "costdsl/archs/frames/moe_stack.hpp"
#include "costdsl/error.hpp"
#include "family.hpp"
#include "model_impl.hpp"

namespace costdsl::cli::models {

namespace detail {

template <class Config>
inline constexpr bool is_dense = false;
template <class Layer>
inline constexpr bool is_dense<archs::DenseConfig<Layer>> = true;
template <class Config>
inline constexpr bool is_mla = false;
template <class Layer>
inline constexpr bool is_mla<archs::MlaMoeConfig<Layer>> = true;
// An MLA family with DeepSeek sparse attention (GLM-5): no KV-parallel grain.
template <class Config>
inline constexpr bool is_sparse_mla = is_mla<Config> && archs::sparse_attention_v<typename Config::layer>;

// The expert leaves' tables: those measured under the family's routing, as aiconfigurator
// looks its models up (ai-dynamo/aiconfigurator at 28db912: power law 1.01 for the DeepSeek
// models, `sdk/models/deepseek.py`; 1.2 for its generic MoE model, `sdk/models/moe.py`):
// here 1.01 for the MLA families, 1.2 for the others; balanced ones where costdsl skews the
// routing itself (--routing-skew), which would otherwise count the skew twice.
template <class Config>
Timing expert_timing(const Timing& timing, const ops::moe::Routing& routing) {
  if (routing.exponent > 0) return timing.with_expert_load(ExpertLoad::balanced);
  return timing.with_expert_load(is_mla<Config> ? ExpertLoad::power_law_1_01 : ExpertLoad::power_law_1_2);
}
template <class Config>
std::optional<Timing> expert_timing(const Timing* timing, const ops::moe::Routing& routing) {
  if (timing == nullptr) return std::nullopt;
  return expert_timing<Config>(*timing, routing);
}
inline const Timing* timing_or_null(const std::optional<Timing>& t) { return t ? &*t : nullptr; }

template <class Config>
std::unique_ptr<Model> open_frame(const HfConfig& config, const ModelOptions& options, const Timing* timing) {
  using Layer = typename Config::layer;
  if constexpr (is_dense<Config>) {
    using Tp = archs::DenseStack<Config>;
    using Hptp = archs::DenseStack<Config, worklets::AttnGrain::hptp>;
    if (options.ep > 1 || options.dp > 1 || options.moe_tp > 1)
      throw InputError(std::string(Layer::family) + " archs are dense: --ep, --dp and --moe-tp must be 1");
    const Config c = Config::from_hf(config, options.parallelism(1));
    // hp 1 is the tp tree (its own type); hp > 1 the KV-parallel grain.
    return with_kv_hint(c, [&] { return c.hp == 1 ? open<Tp>(c, timing) : open<Hptp>(c, timing); });
  } else if constexpr (is_mla<Config>) {
    using Ep = archs::MlaMoeStack<Config>;
    using Hp = archs::MlaMoeStack<Config, worklets::AttnGrain::hptp>;
    using TpExperts = archs::MlaMoeStack<Config, worklets::AttnGrain::tp, worklets::ExpertGrain::tp>;
    // MLA has one latent KV head: nothing to replicate.
    if (options.kv_replicate)
      throw InputError("--kv-replicate: " + std::string(Layer::family) +
                       " archs do not take KV-head replication (MLA has one latent KV head, shared by every query "
                       "head; split the KV with --hp instead)");
    const Config c = Config::from_hf(config, options.parallelism(options.expert_parallel()));
    const ops::moe::Routing routing{options.routing_skew};
    const std::optional<Timing> t = expert_timing<Config>(timing, routing);
    // hp 1 is the tp tree (its own type), with TP experts where ep 1 spans tp > 1 GPUs; hp > 1
    // the KV-parallel grain.
    if (c.hp != 1) return open<Hp>(c, timing_or_null(t), routing);
    return tp_experts(c) ? open<TpExperts>(c, timing_or_null(t), routing) : open<Ep>(c, timing_or_null(t), routing);
  } else {
    using Ep = archs::MoeStack<Config>;
    using TpExperts = archs::MoeStack<Config, worklets::ExpertGrain::tp>;
    const Config c = Config::from_hf(config, options.parallelism(options.expert_parallel()));
    const ops::moe::Routing routing{options.routing_skew};
    const std::optional<Timing> t = expert_timing<Config>(timing, routing);
    return tp_experts(c) ? open<TpExperts>(c, timing_or_null(t), routing) : open<Ep>(c, timing_or_null(t), routing);
  }
}

template <class Config>
std::unique_ptr<serve::ModelSource> frame_source(const HfConfig& config, const Timing& timing,
                                                 ops::moe::Routing routing, bool hop_b) {
  if constexpr (is_dense<Config>) {
    const auto make = [config, hop_b](serve::Parallel p) {
      p.hop_b = hop_b && p.hp > 1;  // the hptp grain's option; the tp tree has no exchange
      return Config::from_hf(config, p);
    };
    return grain_source([make](serve::Parallel p) { return archs::DenseStack<Config>(make(p)); },
                        [make](serve::Parallel p) {
                          return archs::DenseStack<Config, worklets::AttnGrain::hptp>(make(p));
                        },
                        false, timing);
  } else if constexpr (is_mla<Config>) {
    // hp 1 workers run the tp tree (TP experts at ep 1 over tp > 1 GPUs); hp > 1 decode
    // workers the MLA hp grain (tp 1, dp = ep / hp groups of hp GPUs), which a family with
    // sparse attention does not have.
    using Ep = archs::MlaMoeStack<Config>;
    using TpExperts = archs::MlaMoeStack<Config, worklets::AttnGrain::tp, worklets::ExpertGrain::tp>;
    const auto tp_tree = [config](serve::Parallel p) {
      return by_expert_grain<Ep, TpExperts>(Config::from_hf(config, p));
    };
    if constexpr (is_sparse_mla<Config>) {
      return source(tp_tree, true, expert_timing<Config>(timing, routing), routing);
    } else {
      return grain_source(
          tp_tree,
          [config, hop_b](serve::Parallel p) {
            p.hop_b = hop_b;  // the hp grain's option; the tp tree has no exchange
            return archs::MlaMoeStack<Config, worklets::AttnGrain::hptp>(Config::from_hf(config, p));
          },
          true, expert_timing<Config>(timing, routing), routing);
    }
  } else {
    return source(
        [config](serve::Parallel p) {
          return by_expert_grain<archs::MoeStack<Config>, archs::MoeStack<Config, worklets::ExpertGrain::tp>>(
              Config::from_hf(config, p));
        },
        true, expert_timing<Config>(timing, routing), routing);
  }
}

// Layer::reads where the family's tag has one: it shares its config.json names with another.
template <class Layer>
constexpr auto reads_of() -> bool (*)(const HfConfig&) {
  if constexpr (requires(const HfConfig& hf) { Layer::reads(hf); }) {
    return &Layer::reads;
  } else {
    return nullptr;
  }
}

}  // namespace detail

template <class Config>
ModelFamily frame_family() {
  using Layer = typename Config::layer;
  return {.name = std::string(Layer::family),
          .architectures = std::vector<std::string>(Layer::architectures.begin(), Layer::architectures.end()),
          .model_types = std::vector<std::string>(Layer::model_types.begin(), Layer::model_types.end()),
          .reads = detail::reads_of<Layer>(),
          .expert_parallel = !detail::is_dense<Config>,
          .kv_parallel = detail::is_dense<Config> || (detail::is_mla<Config> && !detail::is_sparse_mla<Config>),
          .open = &detail::open_frame<Config>,
          .source = &detail::frame_source<Config>};
}

}  // namespace costdsl::cli::models
