#pragma once
// L2 compound op: DeepSeek sparse attention (DSA: DeepSeek-V3.2, GLM-5) over MLA's paged
// latent cache, per rank: MLA (ops/attention/mla.hpp) whose queries attend only to the
// index_topk cached tokens a lightning indexer picks for each of them. Seventeen fixed
// leaves whatever the batch (INV-1); a phase with no requests pushes zero:
//
//   index_q_proj         the indexer's q from the q latent (q_lora_rank → index heads × dim)
//   index_k_proj         its one key per token from the hidden state (hidden → index_head_dim)
//   index_weights_proj   its per-head weights (hidden → index heads)
//   index_k_norm         the key's LayerNorm (costed as an RMSNorm over index_head_dim)
//   index_rope           rotary on the rope part of its q heads and key
//   index_k_append       the key into the indexer cache: fp8 + one fp32 scale per token
//   kv_cache_append      the latent, as MLA
//   kv_b_proj, prefill   the dense prefill path (below): MLA's up-projected prefill
//   index_logits_prefill, index_topk_prefill, sparse_prefill
//                        the sparse prefill path: every appended query's logits against the
//                        keys it sees, its top-k, absorbed MLA over the selected rows
//   index_logits_decode, index_topk_decode
//                        the same for every decode (work grows with the context)
//   q_absorb, sparse_decode, o_absorb
//                        absorbed MLA: W_UK into q and W_UV out of o for every sparse query
//                        (prefill and decode), the decodes' sparse attention (flat in the
//                        context: topk rows per query)
//
// Prefill takes one path per batch, as SGLang's nsa backend decides it
// (python/sglang/srt/layers/attention/nsa_backend.py, set_nsa_prefill_impl, at commit
// 005e8bf): when no chunk's context (prefix + append) exceeds index_topk, every query could
// select all of its keys, so it runs dense MHA over the up-projected latent (MHA_ONE_SHOT,
// MLA's kv_b_proj + mla_prefill) and selects nothing; otherwise every chunk runs the sparse
// path. Decodes are always sparse. The indexer's projections and its key cache run for every
// token either way (a later decode reads the key).
//
// The sparse attention kernel runs the rank's heads padded up to its head tile (SGLang pads q
// with zero heads to 64 on Hopper, 128 on Blackwell: _forward_flashmla_sparse, same file);
// the sparse leaves' num_heads is that count (GLM-5's 64 heads at tp 1 run as 128 on a B200,
// as its 8 heads a rank at tp 8 do).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <span>

#include "costdsl/dim.hpp"
#include "costdsl/dim_expr.hpp"
#include "costdsl/dtype.hpp"
#include "costdsl/inputs.hpp"
#include "costdsl/kernel.hpp"
#include "costdsl/kernels/dsa_indexer_logits.hpp"
#include "costdsl/kernels/dsa_sparse_mla.hpp"
#include "costdsl/kernels/dsa_topk.hpp"
#include "costdsl/kernels/gemm.hpp"
#include "costdsl/kernels/grouped_gemm.hpp"
#include "costdsl/kernels/kv_cache_append.hpp"
#include "costdsl/kernels/mla_prefill.hpp"
#include "costdsl/kernels/rms_norm.hpp"
#include "costdsl/kernels/rope.hpp"
#include "costdsl/leaf.hpp"
#include "costdsl/ops/attention/attention.hpp"
#include "costdsl/ops/attention/mla.hpp"
#include "costdsl/sum.hpp"
#include "costdsl/timing.hpp"

namespace costdsl::ops {

// The head tile the sparse kernel pads a rank's heads up to: 128 on Blackwell (sm_100 and
// later), 64 on Hopper.
constexpr std::uint64_t dsa_head_tile(int sm_version) { return sm_version >= 100 ? 128 : 64; }
constexpr std::uint64_t dsa_launch_heads(std::uint64_t heads, int sm_version) {
  const std::uint64_t tile = dsa_head_tile(sm_version);
  return (heads + tile - 1) / tile * tile;
}

// The indexer cache's bytes per token and layer: an fp8 key and its fp32 scale, whatever
// the latent cache's dtype (SGLang's NSATokenToKVPool and vLLM's indexer cache alike).
constexpr double dsa_index_key_bytes(std::uint32_t index_head_dim) { return double(index_head_dim) + 4.0; }

// Per-rank DSA shape: MLA's (num_heads the rank's share, the latent dims global) plus the
// indexer, whole on every rank (its projections are replicated across TP).
struct DsaConfig {
  MlaConfig mla;
  Dim hidden, q_lora_rank, index_heads, index_head_dim, topk;
};

// The batch split into the two prefill paths (a pure helper; MlaWork as collapse_mla gives it).
struct DsaWork {
  std::span<const PrefillChunk> dense, sparse;
  std::uint64_t dense_rows = 0;      // keys kv_b_proj expands (dense path)
  std::uint64_t sparse_queries = 0;  // appended tokens on the sparse path
  kernels::DsaSparseMla::Input decode{};
};

inline DsaWork split_dsa(const MlaWork& w, std::uint64_t topk) {
  bool sparse = false;
  for (const PrefillChunk& c : w.prefill) sparse |= std::uint64_t(c.prefix_len) + c.append_len > topk;
  DsaWork d;
  if (sparse) {
    d.sparse = w.prefill;
    d.sparse_queries = w.append_tokens - w.decode_count;
  } else {
    d.dense = w.prefill;
    d.dense_rows = w.expanded_rows;
  }
  if (w.decode_count > 0) {  // the decodes as one launch at their mean KV length
    const double mean = double(w.decode_total_kv) / double(w.decode_count);
    d.decode = {w.decode_count, static_cast<std::uint64_t>(std::max(std::llround(mean) - 1, 0LL)), 1};
  }
  return d;
}

struct Dsa {
  static auto build(const Timing& t, const DsaConfig& c) {
    using namespace kernels;
    using namespace literals;
    const MlaConfig& m = c.mla;
    // The latent as K and V planes of half its width, as MLA; the indexer key with its scale
    // the same way, in fp8 (both halves odd: a ConfigError).
    const auto half = (sym<"kv_lora_rank">(m.kv_lora_rank.value) + sym<"qk_rope_head_dim">(m.qk_rope_head_dim.value)) / 2_c;
    const auto index_half = (sym<"index_head_dim">(c.index_head_dim.value) + 4_c) / 2_c;
    const auto kv_b_n = sym<"num_heads">(m.num_heads.value) *
                        (sym<"qk_nope_head_dim">(m.qk_nope_head_dim.value) + sym<"v_head_dim">(m.v_head_dim.value));
    const auto index_q_n = sym<"index_n_heads">(c.index_heads.value) * sym<"index_head_dim">(c.index_head_dim.value);
    const MlaPrefill::Config pre{m.dtype, m.num_heads, m.kv_lora_rank, m.qk_nope_head_dim, m.qk_rope_head_dim, m.v_head_dim};
    const DsaIndexerLogits::Config logits{Dtype::fp8, c.index_heads, c.index_head_dim};
    const DsaTopk::Config topk{c.topk};
    const DsaSparseMla::Config attn{m.kv_dtype, Dim{dsa_launch_heads(m.num_heads, t.gpu().sm_version)}, m.kv_lora_rank, m.qk_rope_head_dim,
                                    c.topk};
    return sum(leaf<"index_q_proj">(Kernel<Gemm>(t, {m.gemm_dtype, to_dim(index_q_n), c.q_lora_rank})),
               leaf<"index_k_proj">(Kernel<Gemm>(t, {m.gemm_dtype, c.index_head_dim, c.hidden})),
               leaf<"index_weights_proj">(Kernel<Gemm>(t, {m.dtype, c.index_heads, c.hidden})),
               leaf<"index_k_norm">(Kernel<RmsNorm>(t, {m.dtype, c.index_head_dim})),
               leaf<"index_rope">(Kernel<Rope>(t, {m.dtype, c.index_heads, Dim{1}, m.qk_rope_head_dim})),
               leaf<"index_k_append">(Kernel<KvCacheAppend>(t, {Dtype::fp8, Dim{1}, to_dim(index_half)})),
               leaf<"kv_cache_append">(Kernel<KvCacheAppend>(t, {m.kv_dtype, Dim{1}, to_dim(half)})),
               leaf<"kv_b_proj">(Kernel<Gemm>(t, {m.gemm_dtype, to_dim(kv_b_n), m.kv_lora_rank})),
               leaf<"prefill">(ChunkedPrefill<MlaPrefill>{Kernel<MlaPrefill>(t, pre)}),
               leaf<"index_logits_prefill">(ChunkedPrefill<DsaIndexerLogits>{Kernel<DsaIndexerLogits>(t, logits)}),
               leaf<"index_topk_prefill">(ChunkedPrefill<DsaTopk>{Kernel<DsaTopk>(t, topk)}),
               leaf<"sparse_prefill">(ChunkedPrefill<DsaSparseMla>{Kernel<DsaSparseMla>(t, attn)}),
               leaf<"index_logits_decode">(Kernel<DsaIndexerLogits>(t, logits)),
               leaf<"index_topk_decode">(Kernel<DsaTopk>(t, topk)),
               leaf<"q_absorb">(Kernel<GroupedGemm>(t, {m.dtype, m.num_heads, m.kv_lora_rank, m.qk_nope_head_dim})),
               leaf<"sparse_decode">(Kernel<DsaSparseMla>(t, attn)),
               leaf<"o_absorb">(Kernel<GroupedGemm>(t, {m.dtype, m.num_heads, m.v_head_dim, m.kv_lora_rank})));
  }

  // Slot inputs in build() order. heads = the rank's num_heads (one BMM group each).
  static auto inputs(const MlaWork& w, std::uint64_t heads, std::uint64_t topk) {
    using namespace kernels;
    const DsaWork d = split_dsa(w, topk);
    const std::uint64_t m = w.append_tokens;  // every token the step runs
    const GroupedGemm::Input bmm{(d.sparse_queries + w.decode_count) * heads, 0};
    return costdsl::inputs(
        input<"index_q_proj">(Gemm::Input{m}), input<"index_k_proj">(Gemm::Input{m}),
        input<"index_weights_proj">(Gemm::Input{m}), input<"index_k_norm">(RmsNorm::Input{m}),
        input<"index_rope">(Rope::Input{m}), input<"index_k_append">(KvCacheAppend::Input{m}),
        input<"kv_cache_append">(KvCacheAppend::Input{m}), input<"kv_b_proj">(Gemm::Input{d.dense_rows}),
        input<"prefill">(d.dense), input<"index_logits_prefill">(d.sparse), input<"index_topk_prefill">(d.sparse),
        input<"sparse_prefill">(d.sparse), input<"index_logits_decode">(d.decode), input<"index_topk_decode">(d.decode),
        input<"q_absorb">(bmm), input<"sparse_decode">(d.decode), input<"o_absorb">(bmm));
  }
};

}  // namespace costdsl::ops
