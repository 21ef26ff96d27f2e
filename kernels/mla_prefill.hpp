#pragma once
// L1 mla_prefill: DeepSeek-V3 multi-head latent attention, prefill (per rank), in the
// up-projected (non-absorbed) form production engines run for prefill: the latent
// cache is expanded upstream (a GEMM, not this kernel) into per-head
//   K = [k_nope (qk_nope_head_dim) | k_rope (qk_rope_head_dim)],  V (v_head_dim),
// then a causal flash-attention with QK over nope + rope dims and PV over v_head_dim.
// kv_lora_rank is part of the identity (it sizes the cache) but not of this kernel's work.
// One batched launch of `batch` requests; axes, lookup and off-grid policy as attn_prefill
// (aiconfigurator's context_mla table is batch × isl, like its context attention).
#include <array>
#include <string>
#include <vector>

#include "costdsl/detail/str.hpp"
#include "costdsl/dim.hpp"
#include "costdsl/dtype.hpp"
#include "costdsl/kernel_def.hpp"
#include "costdsl/kernels/attn_prefill.hpp"
#include "costdsl/kernels/detail/compiled_once.hpp"
#include "costdsl/metrics.hpp"
#include "costdsl/reflect.hpp"

namespace costdsl::kernels {

struct MlaPrefill {
  static constexpr std::string_view kind = "mla_prefill";
  static constexpr Family family = Family::attention;

  struct Config {
    COSTDSL_FIELDS((Dtype, dtype), (Dim, num_heads), (Dim, kv_lora_rank), (Dim, qk_nope_head_dim),
                   (Dim, qk_rope_head_dim), (Dim, v_head_dim));
  };
  // DeepSeek-V3's dims with num_heads per rank (128 heads over the TP degree).
  static Config deepseek_v3(Dtype dtype, std::uint64_t num_heads) { return {dtype, num_heads, 512, 128, 64, 128}; }

  struct Input {
    COSTDSL_FIELDS((std::uint64_t, batch), (std::uint64_t, prefix), (std::uint64_t, append));
  };
  static constexpr std::array<std::string_view, 2> axes{"batch", "append"};

  static std::array<double, 2> point(const Config&, const Input& in) {
    return {double(in.batch), AttnPrefill::equivalent_append(double(in.prefix), double(in.append))};
  }
  // (requests, causal pairs per request): work = product (see attn_prefill).
  static std::array<double, 2> to_cache(const std::array<double, 2>& p) { return AttnPrefill::to_cache(p); }
  static Input input_at(const Config&, const std::array<double, 2>& at) {
    return {costdsl::detail::count_at(at[0]), 0, costdsl::detail::count_at(std::sqrt(2 * std::max(at[1], 0.0)))};
  }
  static constexpr interp::OffGrid off_grid = interp::OffGrid::product;
  // Requests and work add up: interpolate linearly (see Kernel::fit).
  static constexpr std::array<interp::AxisScale, 2> axis_scales{interp::AxisScale::linear, interp::AxisScale::linear};

  static double pairs(const Input& in) { return double(in.append) * (double(in.prefix) + double(in.append) / 2); }
  static double qk_dim(const Config& c) { return double(c.qk_nope_head_dim) + double(c.qk_rope_head_dim); }
  // Per pair and head: QK^T 2·(nope + rope) flops + PV 2·v flops.
  static double flops(const Config& c, const Input& in) {
    return double(in.batch) * 2.0 * double(c.num_heads) * (qk_dim(c) + double(c.v_head_dim)) * pairs(in);
  }
  // Per chunk and head: read Q (append × (nope+rope)) and write O (append × v); read the
  // expanded K (× (nope+rope)) and V (× v) of all prefix + append keys. Nothing without rows.
  static double bytes(const Config& c, const Input& in) {
    if (in.append == 0) return 0;
    const double row = qk_dim(c) + double(c.v_head_dim);  // q+o, and k+v, elements per token and head
    const double tokens = double(in.append) + (double(in.prefix) + double(in.append));
    return double(in.batch) * bytes_per_element(c.dtype) * double(c.num_heads) * row * tokens;
  }

  // Non-absorbed: every head has its own expanded K and V (no GQA sharing).
  static AttentionShape shape(const Config& c, const Input& in) {
    return {double(in.batch), double(in.prefix), double(in.append), double(c.num_heads), double(c.num_heads),
            qk_dim(c),        double(c.v_head_dim), c.dtype};
  }
  static Metrics roofline(const Roofline& rf, const Config& c, const Input& in) {
    return rf.attention_prefill(shape(c, in), flops(c, in), bytes(c, in));
  }
  static double lower_bound_s(const Roofline& rf, const Config& c, const Input& in) {
    return rf.lower_bound_s(flops(c, in), bytes(c, in), c.dtype);
  }

  // The fresh prefills attn_prefill measures.
  static std::vector<Input> sweep(const Config&) {
    std::vector<Input> grid;
    for (std::uint64_t a : AttnPrefill::sweep_appends()) grid.push_back({1, 0, a});
    return grid;
  }
  static std::vector<std::string> default_backends() { return {"flashinfer", "sglang", "vllm", "trtllm"}; }

  static void validate(const Config& c) {
    auto check = [](std::string_view field, std::uint64_t v, std::uint64_t max) {
      if (v == 0 || v > max) throw ConfigError(costdsl::detail::str("mla_prefill: ", field, " ", v, " must be in 1..", max));
    };
    check("num_heads", c.num_heads, 1024);
    check("kv_lora_rank", c.kv_lora_rank, 8192);
    check("qk_nope_head_dim", c.qk_nope_head_dim, 1024);
    check("qk_rope_head_dim", c.qk_rope_head_dim, 1024);
    check("v_head_dim", c.v_head_dim, 1024);
  }
};

}  // namespace costdsl::kernels

COSTDSL_KERNEL_COMPILED_ONCE(MlaPrefill);
