#pragma once
// L2 compound op: DeepSeek-V3 multi-head latent attention (MLA) over a paged
// latent cache, per rank. Production engines run two algorithms in one step, and
// the op owns the per-rank GEMMs each needs, because their row counts come from
// the chunk list and decode count (not from batch_tokens):
//
//   kv_cache_append  every new token's latent [c_kv (kv_lora_rank) | k_pe (rope)]
//   kv_b_proj        prefill, non-absorbed: expand the latent of every key a chunk
//                    attends to (prefix + append rows) into per-head k_nope and V
//   prefill          all prefill chunks fan in to this one mla_prefill slot
//   q_absorb         decode, absorbed: q_nope · W_UK per head (a BMM over heads)
//   decode           all decode requests collapse into one mla_decode cell
//   o_absorb         decode, absorbed: latent o · W_UV per head (a BMM over heads)
//
// Six fixed leaves whatever the batch (INV-1); a phase with no requests pushes zero.
//
// Kernel reuse, and why:
// - kv_cache_append models K and V planes (2·num_kv_heads·head_dim elements per
//   token). MLA writes ONE latent vector of kv_lora_rank + rope elements, so
//   head_dim = kv_lora_rank + rope with one head would charge the latent twice.
//   We bind num_kv_heads = 1, head_dim = (kv_lora_rank + rope)/2: the two planes
//   together move exactly the latent's bytes (the formula shows in the manifest).
// - The absorbed BMMs are grouped_gemm with one group per head and the same rows
//   in each group (tokens = decodes·heads): exactly its even-routing work model.
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "costdsl/dim.hpp"
#include "costdsl/dim_expr.hpp"
#include "costdsl/dtype.hpp"
#include "costdsl/inputs.hpp"
#include "costdsl/kernel.hpp"
#include "costdsl/kernels/gemm.hpp"
#include "costdsl/kernels/grouped_gemm.hpp"
#include "costdsl/kernels/kv_cache_append.hpp"
#include "costdsl/kernels/mla_decode.hpp"
#include "costdsl/kernels/mla_prefill.hpp"
#include "costdsl/leaf.hpp"
#include "costdsl/ops/attention/attention.hpp"
#include "costdsl/sum.hpp"
#include "costdsl/timing.hpp"

namespace costdsl::ops {

// The batch collapsed to what the six leaves take (a pure helper).
struct MlaWork {
  std::span<const PrefillChunk> prefill;
  std::uint64_t append_tokens = 0;  // Σ append_len + decode count: latent rows written
  std::uint64_t expanded_rows = 0;  // Σ (prefix_len + append_len): keys kv_b_proj expands
  std::uint64_t decode_count = 0;
  std::uint64_t decode_total_kv = 0;
};

// Throws InputError on a malformed request, as collapse() does.
inline MlaWork collapse_mla(const AttentionBatch& b) {
  const AttentionWork w = collapse(b);
  MlaWork m{w.prefill, w.append_tokens, 0, w.decode_count, w.decode_total_kv};
  for (const PrefillChunk& c : b.prefill) m.expanded_rows += std::uint64_t(c.prefix_len) + c.append_len;
  return m;
}

// Per-rank MLA shape: num_heads is the rank's share; the latent dims are global.
// gemm_dtype: kv_b_proj's weights (quantized with the other projections; the absorbed
// BMMs run on the activations' dtype).
struct MlaConfig {
  Dtype dtype = Dtype::bf16;
  Dtype kv_dtype = Dtype::bf16;
  Dtype gemm_dtype = Dtype::bf16;
  Dim num_heads, kv_lora_rank, qk_nope_head_dim, qk_rope_head_dim, v_head_dim;
};

struct Mla {
  static auto build(const Timing& t, const MlaConfig& c) {
    using namespace kernels;
    using namespace literals;
    // The latent as K and V planes of half its width (see the header comment); odd is a ConfigError.
    const auto half = (sym<"kv_lora_rank">(c.kv_lora_rank.value) + sym<"qk_rope_head_dim">(c.qk_rope_head_dim.value)) / 2_c;
    const auto kv_b_n = sym<"num_heads">(c.num_heads.value) *
                        (sym<"qk_nope_head_dim">(c.qk_nope_head_dim.value) + sym<"v_head_dim">(c.v_head_dim.value));
    const MlaPrefill::Config pre{c.dtype, c.num_heads, c.kv_lora_rank, c.qk_nope_head_dim, c.qk_rope_head_dim,
                                 c.v_head_dim};
    const MlaDecode::Config dec{c.kv_dtype, c.num_heads, c.kv_lora_rank, c.qk_nope_head_dim, c.qk_rope_head_dim,
                                c.v_head_dim};
    return sum(leaf<"kv_cache_append">(Kernel<KvCacheAppend>(t, {c.kv_dtype, Dim{1}, to_dim(half)})),
               leaf<"kv_b_proj">(Kernel<Gemm>(t, {c.gemm_dtype, to_dim(kv_b_n), c.kv_lora_rank})),
               leaf<"prefill">(ChunkedPrefill<MlaPrefill>{Kernel<MlaPrefill>(t, pre)}),
               leaf<"q_absorb">(Kernel<GroupedGemm>(t, {c.dtype, c.num_heads, c.kv_lora_rank, c.qk_nope_head_dim})),
               leaf<"decode">(Kernel<MlaDecode>(t, dec)),
               leaf<"o_absorb">(Kernel<GroupedGemm>(t, {c.dtype, c.num_heads, c.v_head_dim, c.kv_lora_rank})));
  }

  // Slot inputs in build() order. heads = the rank's num_heads (one BMM group each).
  static auto inputs(const MlaWork& w, std::uint64_t heads) {
    using namespace kernels;
    const GroupedGemm::Input bmm{w.decode_count * heads, 0};
    return costdsl::inputs(input<"kv_cache_append">(KvCacheAppend::Input{w.append_tokens}),
                           input<"kv_b_proj">(Gemm::Input{w.expanded_rows}), input<"prefill">(w.prefill),
                           input<"q_absorb">(bmm), input<"decode">(MlaDecode::Input{w.decode_count, w.decode_total_kv}),
                           input<"o_absorb">(bmm));
  }
};

}  // namespace costdsl::ops
