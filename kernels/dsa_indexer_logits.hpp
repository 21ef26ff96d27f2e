#pragma once
// L1 dsa_indexer_logits: the lightning indexer's scores of DeepSeek sparse attention
// (DeepSeek-V3.2, GLM-5; per rank): for every query, an fp8 MQA of its num_heads indexer
// heads against the one head_dim-wide indexer key of every token it can see, each head's
// ReLU'd score weighted per token and summed over the heads:
//   logit(q, t) = Σ_h w(q, h) · ReLU(q_h · k_t)
// DeepGEMM's fp8_mqa_logits (prefill, a causal key range per query) and fp8_paged_mqa_logits
// (decode, over the paged indexer cache), as SGLang's nsa_indexer and vLLM's sparse indexer
// run them; one fp32 logit out per (query, key). The keys are cached in fp8 with one fp32
// scale per token (the indexer cache's layout). Work grows with every key seen: this is
// the part of sparse attention whose cost follows the context.
#include <array>
#include <cmath>
#include <string>
#include <vector>

#include "costdsl/dim.hpp"
#include "costdsl/dtype.hpp"
#include "costdsl/kernel_def.hpp"
#include "costdsl/kernels/detail/compiled_once.hpp"
#include "costdsl/kernels/detail/dsa_launch.hpp"
#include "costdsl/reflect.hpp"

namespace costdsl::kernels {

struct DsaIndexerLogits {
  static constexpr std::string_view kind = "dsa_indexer_logits";
  static constexpr Family family = Family::attention;

  struct Config {
    COSTDSL_FIELDS((Dtype, dtype), (Dim, num_heads), (Dim, head_dim));
  };
  using Input = detail::DsaLaunch;
  static constexpr std::array<std::string_view, 2> axes{"queries", "keys"};

  static std::array<double, 2> point(const Config&, const Input& in) { return detail::dsa_query_key_point(in); }
  // The decode launch a cell stands for (its keys spread over its queries).
  static Input input_at(const Config&, const std::array<double, 2>& at) { return detail::dsa_decode_at(at); }
  static constexpr interp::OffGrid off_grid = interp::OffGrid::weighted;
  // Queries and keys add up: interpolate linearly (see Kernel::fit).
  static constexpr std::array<interp::AxisScale, 2> axis_scales{interp::AxisScale::linear, interp::AxisScale::linear};

  // The query tile DeepGEMM streams a sequence's keys once for.
  static constexpr double query_tile = 128;

  // Per (query, key): the q·k dot products 2·heads·head_dim, ReLU, weight and head sum 3·heads.
  static double flops(const Config& c, const Input& in) {
    return detail::dsa_keys(in) * double(c.num_heads) * (2.0 * double(c.head_dim) + 3.0);
  }
  // The keys (fp8 + fp32 scale) once per query tile of each sequence, the queries' fp8 q
  // rows and fp32 head weights, one fp32 logit out per (query, key).
  static double bytes(const Config& c, const Input& in) {
    if (in.batch == 0 || in.append == 0) return 0;
    const double tiles = std::ceil(double(in.append) / query_tile);
    const double keys_read = double(in.batch) * tiles * detail::dsa_context(in) * (double(c.head_dim) + 4.0);
    const double q = detail::dsa_queries(in) * double(c.num_heads) * (bytes_per_element(c.dtype) * double(c.head_dim) + 4.0);
    return keys_read + q + 4.0 * detail::dsa_keys(in);
  }

  // An MQA over one shared key head (value width 1: the weighted head sum): decode's form for
  // one query per sequence, prefill's (causal, after the prefix) otherwise.
  static Metrics roofline(const Roofline& rf, const Config& c, const Input& in) {
    const double h = double(c.num_heads), d = double(c.head_dim);
    if (in.append <= 1)
      return rf.attention_decode({double(in.batch), detail::dsa_context(in), 1, h, 1, d, 1, c.dtype}, flops(c, in),
                                 bytes(c, in));
    return rf.attention_prefill({double(in.batch), double(in.prefix), double(in.append), h, 1, d, 1, c.dtype},
                                flops(c, in), bytes(c, in));
  }
  static double lower_bound_s(const Roofline& rf, const Config& c, const Input& in) {
    return rf.lower_bound_s(flops(c, in), bytes(c, in), c.dtype);
  }

  static std::vector<Input> sweep(const Config&) { return detail::dsa_sweep(); }
  static std::vector<std::string> default_backends() { return {"deep_gemm", "sglang", "vllm", "trtllm"}; }

  static void validate(const Config& c) {
    detail::dsa_check(kind, "num_heads", c.num_heads, 1024);
    detail::dsa_check(kind, "head_dim", c.head_dim, 1024);
  }
};

}  // namespace costdsl::kernels

COSTDSL_KERNEL_COMPILED_ONCE(DsaIndexerLogits);
