#pragma once
// L1 gdn_decode: one decode step of the gated delta rule (fused_recurrent_gated_delta_rule,
// the packed decode SGLang and vLLM run; per rank). Each request brings one token's
// q, k (num_k_heads × head_k_dim, each k head shared by num_v_heads / num_k_heads v heads),
// v (num_v_heads × head_v_dim) and the gate inputs a, b per v head; each v head updates
// its request's fp32 recurrent state S (head_k_dim × head_v_dim) in place:
//   g = −exp(A_log) · softplus(a + dt_bias),  β = sigmoid(b),  q, k l2-normalised
//   S ← exp(g) · S;  S ← S + k · (β · (v − Sᵀk))ᵀ;  o = Sᵀq
// Reading and writing every state dominates: the step is bandwidth-bound on the state.
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "costdsl/dim.hpp"
#include "costdsl/dtype.hpp"
#include "costdsl/kernel_def.hpp"
#include "costdsl/kernels/detail/compiled_once.hpp"
#include "costdsl/kernels/detail/gdn_heads.hpp"
#include "costdsl/reflect.hpp"

namespace costdsl::kernels {

struct GdnDecode {
  static constexpr std::string_view kind = "gdn_decode";
  static constexpr Family family = Family::attention;

  struct Config {
    COSTDSL_FIELDS((Dtype, dtype), (Dim, num_k_heads), (Dim, head_k_dim), (Dim, num_v_heads), (Dim, head_v_dim));
  };
  struct Input {
    COSTDSL_FIELDS((std::uint64_t, batch));
  };
  static constexpr std::array<std::string_view, 1> axes{"batch"};

  static detail::GdnHeads heads(const Config& c) {
    return detail::GdnHeads::of(c);
  }
  // The recurrent state's element size: fp32 whatever the activations' dtype (frameworks
  // keep mamba_ssm_dtype float32 for GDN models).
  static constexpr double state_bytes_per_element = 4;

  static std::array<double, 1> point(const Config&, const Input& in) { return {double(in.batch)}; }
  // Requests add up: interpolate linearly (see Kernel::fit).
  static constexpr std::array<interp::AxisScale, 1> axis_scales{interp::AxisScale::linear};

  // Per request and v head (dk = head_k_dim, dv = head_v_dim): the decay dk·dv, Sᵀk
  // 2·dk·dv, the rank-one update 2·dk·dv, Sᵀq 2·dk·dv (7·dk·dv), δ = β·(v − Sᵀk) 2·dv,
  // and the gates 10 (a + dt_bias, softplus's exp, add and log, −exp(A_log)·, exp(g),
  // sigmoid's exp, add and divide); per request and k head the l2 norms of q and k, 3·dk
  // each (square-add, then scale; the 1/√dk scale of q folds into its norm's).
  static double flops(const Config& c, const Input& in) {
    const detail::GdnHeads h = heads(c);
    const double dk = double(h.head_k_dim), dv = double(h.head_v_dim);
    const double per_v = 7.0 * dk * dv + 2.0 * dv + 10.0, per_k = 6.0 * dk;
    return double(in.batch) * (double(h.num_v_heads) * per_v + double(h.num_k_heads) * per_k);
  }
  // Per request: its state read and written (fp32, 2·4 B per element), the packed q|k|v
  // read (conv_dim), o written (num_v_heads · dv), a and b read (one each per v head), its
  // int32 state slot; per launch A_log (fp32) and dt_bias (model dtype) per v head. No
  // request, no launch.
  static double bytes(const Config& c, const Input& in) {
    if (in.batch == 0) return 0;
    const detail::GdnHeads h = heads(c);
    const double e = bytes_per_element(c.dtype), hv = double(h.num_v_heads);
    const double per_request =
        2.0 * state_bytes_per_element * h.state_elements() + e * (h.conv_dim() + h.v_dim() + 2.0 * hv) + 4.0;
    return double(in.batch) * per_request + hv * (4.0 + e);
  }

  // Bandwidth-bound on the states: the memory-bound form with its generic curve (a state
  // update of its own has no measured curve; see docs/accuracy.md, "Gated DeltaNet").
  static Metrics roofline(const Roofline& rf, const Config& c, const Input& in) {
    return rf.memory_bound(flops(c, in), bytes(c, in), ElementwiseKind::generic);
  }
  // The recurrence runs in fp32 on the CUDA cores.
  static double lower_bound_s(const Roofline& rf, const Config& c, const Input& in) {
    return rf.lower_bound_s(flops(c, in), bytes(c, in), Dtype::fp32);
  }

  static std::vector<Input> sweep(const Config&) { return detail::gdn_decode_sweep<Input>(); }
  static std::vector<std::string> default_backends() { return {"sglang", "vllm", "trtllm"}; }

  static void validate(const Config& c) { heads(c).validate(kind, c.dtype); }
};

}  // namespace costdsl::kernels

COSTDSL_KERNEL_COMPILED_ONCE(GdnDecode);
