// The layer contracts (docs/design.md §6) as compile-time checks: every shipped worklet
// satisfies WorkletDef and every shipped arch ArchDef, each in its static and its
// run-time form; the DP-attention MoE archs are DpArch, the dense ones DenseArch.
#include <doctest/doctest.h>

#include "costdsl/arch_def.hpp"
#include "costdsl/archs/deepseek_v3.hpp"
#include "costdsl/archs/gpt_oss.hpp"
#include "costdsl/archs/llama3.hpp"
#include "costdsl/archs/mixtral.hpp"
#include "costdsl/archs/qwen3.hpp"
#include "costdsl/archs/qwen3_moe.hpp"
#include "costdsl/worklet_def.hpp"
#include "costdsl/worklets/attn_block_hptp.hpp"
#include "costdsl/worklets/attn_block_tp.hpp"
#include "costdsl/worklets/attn_local.hpp"
#include "costdsl/worklets/embed_tp.hpp"
#include "costdsl/worklets/lm_head_tp.hpp"
#include "costdsl/worklets/mla_block_tp.hpp"
#include "costdsl/worklets/mlp_block_tp.hpp"
#include "costdsl/worklets/mlp_local.hpp"
#include "costdsl/worklets/moe_expert_ep.hpp"
#include "costdsl/worklets/moe_expert_tp.hpp"
#include "costdsl/worklets/moe_router_local.hpp"
#include "costdsl/worklets/moe_shared_expert.hpp"
#include "costdsl/worklets/pre_attn_local.hpp"

#include "common.hpp"

namespace {
using namespace costdsl;
using namespace costdsl::archs;
using namespace costdsl::worklets;

// Both forms of one config type: Fixed<preset> and the config itself.
template <template <class> class W, auto Preset>
constexpr bool both_forms = WorkletDef<W<Fixed<Preset>>, Fixed<Preset>> &&
                            WorkletDef<W<std::remove_cvref_t<decltype(Preset)>>, std::remove_cvref_t<decltype(Preset)>>;

template <class F>
using AttnTp = AttnBlockTp<F>;
template <class F>
using AttnHptp = AttnBlockHptp<F>;
template <class F>
using Attn = AttnLocal<F>;
template <class F>
using PreAttn = PreAttnLocal<F>;
template <class F>
using Embed = EmbedTp<F>;
template <class F>
using LmHead = LmHeadTp<F>;
template <class F>
using Mla = MlaBlockTp<F>;
template <class F>
using MlpTp = MlpBlockTp<F>;
template <class F>
using Mlp = MlpLocal<F>;
template <class F>
using Experts = MoeExpertEp<F>;
template <class F>
using ExpertsTp = MoeExpertTp<F>;
template <class F>
using Router = MoeRouterLocal<F>;
template <class F>
using Shared = MoeSharedExpert<F>;

static_assert(both_forms<AttnTp, deploy(llama3_70b, {.tp = 8})>);
static_assert(both_forms<AttnHptp, deploy(llama3_70b, {.tp = 8, .hp = 2})>);
static_assert(both_forms<Attn, deploy(llama3_8b)>);
static_assert(both_forms<PreAttn, deploy(llama3_8b)>);
static_assert(both_forms<Embed, deploy(llama3_8b)>);
static_assert(both_forms<LmHead, deploy(llama3_8b)>);
static_assert(both_forms<MlpTp, deploy(llama3_70b, {.tp = 8})>);
static_assert(both_forms<Mlp, deploy(llama3_8b)>);
static_assert(both_forms<Mla, deploy(deepseek_v3, {.tp = 8, .ep = 8})>);
static_assert(both_forms<Experts, deploy(qwen3_235b_a22b, {.tp = 1, .ep = 8})>);
static_assert(both_forms<ExpertsTp, deploy(mixtral_8x7b, {.tp = 8, .ep = 1})>);
static_assert(both_forms<Router, deploy(qwen3_235b_a22b, {.tp = 1, .ep = 8})>);
static_assert(both_forms<Shared, deploy(deepseek_v3, {.tp = 1, .ep = 8})>);

static_assert(DenseArch<Llama3<Fixed<deploy(llama3_70b, {.tp = 8})>>> && DenseArch<Llama3<Llama3Config>>);
static_assert(DenseArch<Llama3<Llama3Config, AttnGrain::hptp>>);
static_assert(DenseArch<Qwen3<Fixed<deploy(qwen3_32b, {.tp = 8})>>> && DenseArch<Qwen3<Qwen3Config>>);
static_assert(DpArch<Qwen3Moe<Fixed<deploy(qwen3_235b_a22b, {.tp = 1, .ep = 8})>>> && DpArch<Qwen3Moe<Qwen3MoeConfig>>);
static_assert(DpArch<Mixtral<Fixed<deploy(mixtral_8x7b, {.tp = 2, .ep = 8})>>> && DpArch<Mixtral<MixtralConfig>>);
static_assert(DpArch<Mixtral<MixtralConfig, ExpertGrain::tp>>);
static_assert(DpArch<DeepseekV3<Fixed<deploy(deepseek_v3, {.tp = 8, .ep = 8})>>> && DpArch<DeepseekV3<DeepseekV3Config>>);
static_assert(DpArch<GptOss<Fixed<deploy(gpt_oss_120b, {.tp = 1, .ep = 8})>>> && DpArch<GptOss<GptOssConfig>>);
// TP experts, both forms: the static ones picked by ep 1 over tp > 1.
static_assert(DpArch<Qwen3Moe<Fixed<deploy(qwen3_235b_a22b, {.tp = 4, .ep = 1})>>> &&
              DpArch<Qwen3Moe<Qwen3MoeConfig, ExpertGrain::tp>>);
static_assert(DpArch<GptOss<Fixed<deploy(gpt_oss_120b, {.tp = 4, .ep = 1})>>> && DpArch<GptOss<GptOssConfig, ExpertGrain::tp>>);
static_assert(DpArch<DeepseekV3<Fixed<deploy(deepseek_v3, {.tp = 8, .ep = 1})>>> &&
              DpArch<DeepseekV3<DeepseekV3Config, AttnGrain::tp, ExpertGrain::tp>>);
// And what is not a worklet or an arch is not one.
static_assert(!ArchDef<AttnTp<Llama3Config>> && !WorkletDef<Llama3<Llama3Config>, Llama3Config>);
}  // namespace

TEST_CASE("the layer contracts hold for every shipped worklet and arch (checked at compile time)") {
  CHECK(DenseArch<Llama3<Llama3Config>>);
  CHECK(DpArch<DeepseekV3<DeepseekV3Config>>);
}

TEST_CASE("every slot of every shipped arch carries its kernel's family in the manifest (custom slots too)") {
  const Timing& t = arch_test::roofline_h200();
  Llama3Config hop_b = deploy(llama3_70b, {.tp = 8, .hp = 2});
  hop_b.hop_b = true;  // HpRankFolded, HpExchange, ChunkedPrefill
  arch_test::check_slot_families(make_manifest(Llama3<Llama3Config, AttnGrain::hptp>(hop_b).build(t)));
  arch_test::check_slot_families(make_manifest(Qwen3<Fixed<deploy(qwen3_32b, {.tp = 8})>>().build(t)));
  arch_test::check_slot_families(make_manifest(Qwen3Moe<Qwen3MoeConfig>(deploy(qwen3_235b_a22b, {.tp = 1, .ep = 8})).build(t)));
  arch_test::check_slot_families(make_manifest(Mixtral<MixtralConfig>(deploy(mixtral_8x7b, {.tp = 2, .ep = 8})).build(t)));
  arch_test::check_slot_families(
      make_manifest(Mixtral<MixtralConfig, ExpertGrain::tp>(deploy(mixtral_8x7b, {.tp = 8, .ep = 1})).build(t)));
  arch_test::check_slot_families(make_manifest(DeepseekV3<DeepseekV3Config>(deploy(deepseek_v3, {.tp = 8, .ep = 8})).build(t)));
  arch_test::check_slot_families(make_manifest(GptOss<GptOssConfig>(deploy(gpt_oss_120b, {.tp = 1, .ep = 8})).build(t)));
  arch_test::check_slot_families(
      make_manifest(Qwen3Moe<Qwen3MoeConfig, ExpertGrain::tp>(deploy(qwen3_235b_a22b, {.tp = 4, .ep = 1})).build(t)));
  arch_test::check_slot_families(
      make_manifest(GptOss<GptOssConfig, ExpertGrain::tp>(deploy(gpt_oss_120b, {.tp = 4, .ep = 1})).build(t)));
  arch_test::check_slot_families(make_manifest(
      DeepseekV3<DeepseekV3Config, AttnGrain::tp, ExpertGrain::tp>(deploy(deepseek_v3, {.tp = 8, .ep = 1})).build(t)));
}
