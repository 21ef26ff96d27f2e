#pragma once
// L1 dsa_sparse_mla: DeepSeek sparse attention's core (DeepSeek-V3.2, GLM-5; per rank):
// absorbed MLA (as mla_decode) in which every query attends only to the topk cached tokens
// its lightning indexer selected, gathered by index from the latent cache
// (FlashMLA's flash_mla_sparse_fwd, which SGLang's nsa backend runs for sparse prefill and
// decode: sglang python/sglang/srt/layers/attention/nsa_backend.py, _forward_flashmla_sparse,
// at commit 005e8bf). One launch per phase: prefill queries and decodes alike are rows of
// (query, topk indices).
//   - The kernel walks all topk index slots of a query; slots past a short context hold −1
//     and are masked, not skipped: aiconfigurator's glm5_dsa_attn_module table (B200,
//     SGLang 0.5.14) is flat in the cached length at every isl, below topk as above (e.g.
//     one decode: 0.034 ms at 1 024 cached tokens, 0.030 ms at 131 072). So the work is
//     queries × topk slots, whatever the context: flat in the context by construction.
//   - num_heads is the launch's heads: SGLang pads a rank's heads up to the kernel's head
//     tile (64 on Hopper, 128 on Blackwell) with zeros, so a TP rank of 8 heads costs a
//     whole tile (ops/attention/dsa.hpp pads). The table's GLM-5 rows (64 heads at tp 1)
//     ran padded to 128 on the B200.
// `dtype` is the latent cache's; q and o are 16-bit activations.
#include <array>
#include <string>
#include <vector>

#include "costdsl/detail/str.hpp"
#include "costdsl/dim.hpp"
#include "costdsl/dtype.hpp"
#include "costdsl/kernel_def.hpp"
#include "costdsl/kernels/detail/compiled_once.hpp"
#include "costdsl/kernels/detail/dsa_launch.hpp"
#include "costdsl/reflect.hpp"

namespace costdsl::kernels {

struct DsaSparseMla {
  static constexpr std::string_view kind = "dsa_sparse_mla";
  static constexpr Family family = Family::attention;

  struct Config {
    COSTDSL_FIELDS((Dtype, dtype), (Dim, num_heads), (Dim, kv_lora_rank), (Dim, qk_rope_head_dim), (Dim, topk));
  };
  using Input = detail::DsaLaunch;
  static constexpr std::array<std::string_view, 1> axes{"queries"};

  static std::array<double, 1> point(const Config&, const Input& in) { return {detail::dsa_queries(in)}; }
  // Queries add up: interpolate linearly (see Kernel::fit).
  static constexpr std::array<interp::AxisScale, 1> axis_scales{interp::AxisScale::linear};

  static Dtype act_dtype(const Config& c) { return bytes_per_element(c.dtype) < 2 ? Dtype::bf16 : c.dtype; }
  static double latent_dim(const Config& c) { return double(c.kv_lora_rank) + double(c.qk_rope_head_dim); }
  // Index slots walked: topk per query.
  static double slots(const Config& c, const Input& in) { return detail::dsa_queries(in) * double(c.topk); }

  // Per slot and head: QK^T 2·(kv_lora_rank + rope) + PV 2·kv_lora_rank flops.
  static double flops(const Config& c, const Input& in) {
    return 2.0 * double(c.num_heads) * slots(c, in) * (latent_dim(c) + double(c.kv_lora_rank));
  }
  // Per slot its gathered latent row (all heads of the query share it) and its int32 index;
  // per query and head the absorbed q row in and the latent o row out.
  static double bytes(const Config& c, const Input& in) {
    const double q = detail::dsa_queries(in), h = double(c.num_heads);
    if (q == 0) return 0;
    return slots(c, in) * (bytes_per_element(c.dtype) * latent_dim(c) + 4.0) +
           bytes_per_element(act_dtype(c)) * q * h * (latent_dim(c) + double(c.kv_lora_rank));
  }

  // Each query is an absorbed-MLA decode over its topk gathered rows: one shared latent
  // "KV head" for all heads (mla_decode's form, topk keys per query).
  static Metrics roofline(const Roofline& rf, const Config& c, const Input& in) {
    const AttentionShape s{detail::dsa_queries(in), double(c.topk), 1, double(c.num_heads), 1, latent_dim(c),
                           double(c.kv_lora_rank), act_dtype(c)};
    return rf.attention_decode(s, flops(c, in), bytes(c, in));
  }
  static double lower_bound_s(const Roofline& rf, const Config& c, const Input& in) {
    return rf.lower_bound_s(flops(c, in), bytes(c, in), act_dtype(c));
  }

  static std::vector<Input> sweep(const Config&) { return detail::dsa_sweep(); }
  static std::vector<std::string> default_backends() { return {"flashmla", "sglang", "vllm", "trtllm"}; }

  static void validate(const Config& c) {
    detail::dsa_check(kind, "num_heads", c.num_heads, 1024);
    detail::dsa_check(kind, "kv_lora_rank", c.kv_lora_rank, 8192);
    detail::dsa_check(kind, "qk_rope_head_dim", c.qk_rope_head_dim, 1024);
    detail::dsa_check(kind, "topk", c.topk, 1u << 20);
  }
};

}  // namespace costdsl::kernels

COSTDSL_KERNEL_COMPILED_ONCE(DsaSparseMla);
