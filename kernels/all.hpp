#pragma once
// The kernel catalogue: every L1 kind, for the CLI, the profiler and tests.
#include <string_view>

#include <boost/mp11/algorithm.hpp>
#include <boost/mp11/list.hpp>

#include "costdsl/kernels/all_gather.hpp"
#include "costdsl/kernels/all_reduce.hpp"
#include "costdsl/kernels/all_to_all.hpp"
#include "costdsl/kernels/attn_decode.hpp"
#include "costdsl/kernels/attn_prefill.hpp"
#include "costdsl/kernels/dsa_indexer_logits.hpp"
#include "costdsl/kernels/dsa_sparse_mla.hpp"
#include "costdsl/kernels/dsa_topk.hpp"
#include "costdsl/kernels/embedding.hpp"
#include "costdsl/kernels/fused_add_rms_norm.hpp"
#include "costdsl/kernels/fused_moe.hpp"
#include "costdsl/kernels/gdn_conv1d_decode.hpp"
#include "costdsl/kernels/gdn_conv1d_prefill.hpp"
#include "costdsl/kernels/gdn_decode.hpp"
#include "costdsl/kernels/gdn_prefill.hpp"
#include "costdsl/kernels/gemm.hpp"
#include "costdsl/kernels/grouped_gemm.hpp"
#include "costdsl/kernels/kv_cache_append.hpp"
#include "costdsl/kernels/merge_attn_states.hpp"
#include "costdsl/kernels/mla_decode.hpp"
#include "costdsl/kernels/mla_prefill.hpp"
#include "costdsl/kernels/moe_router.hpp"
#include "costdsl/kernels/moe_sum.hpp"
#include "costdsl/kernels/p2p.hpp"
#include "costdsl/kernels/reduce_scatter.hpp"
#include "costdsl/kernels/rms_norm.hpp"
#include "costdsl/kernels/rope.hpp"
#include "costdsl/kernels/sampler.hpp"
#include "costdsl/kernels/silu_and_mul.hpp"

namespace costdsl::kernels {

using All = boost::mp11::mp_list<Gemm, GroupedGemm, FusedMoe, RmsNorm, FusedAddRmsNorm, SiluAndMul, Rope, Embedding,
                                 KvCacheAppend, AttnPrefill, AttnDecode, MergeAttnStates, MlaPrefill, MlaDecode, MoeRouter,
                                 MoeSum, AllReduce, AllGather, ReduceScatter, AllToAll, P2p, Sampler, GdnConv1dPrefill,
                                 GdnConv1dDecode, GdnPrefill, GdnDecode, DsaIndexerLogits, DsaTopk, DsaSparseMla>;

// The family of a kernel kind (for the lower-bound view and the pictures);
// kinds outside the catalogue are Family::other.
inline Family family_of(std::string_view kind) {
  Family f = Family::other;
  boost::mp11::mp_for_each<All>([&](auto k) {
    if (decltype(k)::kind == kind) f = decltype(k)::family;
  });
  return f;
}

}  // namespace costdsl::kernels
