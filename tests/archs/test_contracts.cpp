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
#include "costdsl/worklets/embed_local.hpp"
#include "costdsl/worklets/lm_head_local.hpp"
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
using Embed = EmbedLocal<F>;
template <class F>
using LmHead = LmHeadLocal<F>;
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

static_assert(both_forms<AttnTp, llama3_70b.with_tp(8)>);
static_assert(both_forms<AttnHptp, llama3_70b.with_tp(8).with_hp(2)>);
static_assert(both_forms<Attn, llama3_8b>);
static_assert(both_forms<PreAttn, llama3_8b>);
static_assert(both_forms<Embed, llama3_8b>);
static_assert(both_forms<LmHead, llama3_8b>);
static_assert(both_forms<MlpTp, llama3_70b.with_tp(8)>);
static_assert(both_forms<Mlp, llama3_8b>);
static_assert(both_forms<Mla, deepseek_v3.with_parallel(8, 8)>);
static_assert(both_forms<Experts, qwen3_235b_a22b.with_parallel(1, 8)>);
static_assert(both_forms<ExpertsTp, mixtral_8x7b.with_parallel(8, 1)>);
static_assert(both_forms<Router, qwen3_235b_a22b.with_parallel(1, 8)>);
static_assert(both_forms<Shared, deepseek_v3.with_parallel(1, 8)>);

static_assert(DenseArch<Llama3<Fixed<llama3_70b.with_tp(8)>>> && DenseArch<Llama3<Llama3Config>>);
static_assert(DenseArch<Llama3<Llama3Config, AttnGrain::hptp>>);
static_assert(DenseArch<Qwen3<Fixed<qwen3_32b.with_tp(8)>>> && DenseArch<Qwen3<Qwen3Config>>);
static_assert(DpArch<Qwen3Moe<Fixed<qwen3_235b_a22b.with_parallel(1, 8)>>> && DpArch<Qwen3Moe<Qwen3MoeConfig>>);
static_assert(DpArch<Mixtral<Fixed<mixtral_8x7b.with_parallel(2, 8)>>> && DpArch<Mixtral<MixtralConfig>>);
static_assert(DpArch<Mixtral<MixtralConfig, ExpertGrain::tp>>);
static_assert(DpArch<DeepseekV3<Fixed<deepseek_v3.with_parallel(8, 8)>>> && DpArch<DeepseekV3<DeepseekV3Config>>);
static_assert(DpArch<GptOss<Fixed<gpt_oss_120b.with_parallel(1, 8)>>> && DpArch<GptOss<GptOssConfig>>);
// TP experts, both forms: the static ones picked by ep 1 over tp > 1.
static_assert(DpArch<Qwen3Moe<Fixed<qwen3_235b_a22b.with_parallel(4, 1)>>> &&
              DpArch<Qwen3Moe<Qwen3MoeConfig, ExpertGrain::tp>>);
static_assert(DpArch<GptOss<Fixed<gpt_oss_120b.with_parallel(4, 1)>>> && DpArch<GptOss<GptOssConfig, ExpertGrain::tp>>);
static_assert(DpArch<DeepseekV3<Fixed<deepseek_v3.with_parallel(8, 1)>>> &&
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
  Llama3Config hop_b = llama3_70b.with_tp(8).with_hp(2);
  hop_b.hop_b = true;  // HpRankFolded, HpExchange, ChunkedPrefill
  arch_test::check_slot_families(make_manifest(Llama3<Llama3Config, AttnGrain::hptp>(hop_b).build(t)));
  arch_test::check_slot_families(make_manifest(Qwen3<Fixed<qwen3_32b.with_tp(8)>>().build(t)));
  arch_test::check_slot_families(make_manifest(Qwen3Moe<Qwen3MoeConfig>(qwen3_235b_a22b.with_parallel(1, 8)).build(t)));
  arch_test::check_slot_families(make_manifest(Mixtral<MixtralConfig>(mixtral_8x7b.with_parallel(2, 8)).build(t)));
  arch_test::check_slot_families(
      make_manifest(Mixtral<MixtralConfig, ExpertGrain::tp>(mixtral_8x7b.with_parallel(8, 1)).build(t)));
  arch_test::check_slot_families(make_manifest(DeepseekV3<DeepseekV3Config>(deepseek_v3.with_parallel(8, 8)).build(t)));
  arch_test::check_slot_families(make_manifest(GptOss<GptOssConfig>(gpt_oss_120b.with_parallel(1, 8)).build(t)));
  arch_test::check_slot_families(
      make_manifest(Qwen3Moe<Qwen3MoeConfig, ExpertGrain::tp>(qwen3_235b_a22b.with_parallel(4, 1)).build(t)));
  arch_test::check_slot_families(
      make_manifest(GptOss<GptOssConfig, ExpertGrain::tp>(gpt_oss_120b.with_parallel(4, 1)).build(t)));
  arch_test::check_slot_families(make_manifest(
      DeepseekV3<DeepseekV3Config, AttnGrain::tp, ExpertGrain::tp>(deepseek_v3.with_parallel(8, 1)).build(t)));
}
