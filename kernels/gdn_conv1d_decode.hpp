#pragma once
// L1 gdn_conv1d_decode: one decode step of a Gated DeltaNet layer's short causal
// depthwise convolution (causal_conv1d_update, per rank): each request's one new token is
// convolved, channel by channel over the packed q | k | v projection output
// (conv_dim = 2·num_k_heads·head_k_dim + num_v_heads·head_v_dim), with that request's
// conv state (its last d_conv − 1 inputs per channel), then SiLU; the state shifts by
// the new input.
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "costdsl/detail/str.hpp"
#include "costdsl/dim.hpp"
#include "costdsl/dtype.hpp"
#include "costdsl/kernel_def.hpp"
#include "costdsl/kernels/detail/compiled_once.hpp"
#include "costdsl/kernels/detail/gdn_heads.hpp"
#include "costdsl/reflect.hpp"

namespace costdsl::kernels {

struct GdnConv1dDecode {
  static constexpr std::string_view kind = "gdn_conv1d_decode";
  static constexpr Family family = Family::memory;

  struct Config {
    COSTDSL_FIELDS((Dtype, dtype), (Dim, num_k_heads), (Dim, head_k_dim), (Dim, num_v_heads), (Dim, head_v_dim),
                   (Dim, d_conv));
  };
  struct Input {
    COSTDSL_FIELDS((std::uint64_t, batch));
  };
  static constexpr std::array<std::string_view, 1> axes{"batch"};

  static detail::GdnHeads heads(const Config& c) {
    return detail::GdnHeads::of(c);
  }

  static std::array<double, 1> point(const Config&, const Input& in) { return {double(in.batch)}; }
  // Requests add up: interpolate linearly (see Kernel::fit).
  static constexpr std::array<interp::AxisScale, 1> axis_scales{interp::AxisScale::linear};

  // Per request and channel: d_conv multiply-adds (2·d_conv) and SiLU x / (1 + exp(−x)):
  // exp, add, divide = 3.
  static double flops(const Config& c, const Input& in) {
    return double(in.batch) * heads(c).conv_dim() * (2.0 * double(c.d_conv) + 3.0);
  }
  // Per request and channel: the new input read, the output written and the conv state
  // (d_conv − 1 values, the model dtype) read and written back shifted; per request its
  // int32 state slot; per launch the d_conv taps of each channel. No request, no launch.
  static double bytes(const Config& c, const Input& in) {
    if (in.batch == 0) return 0;
    const double e = bytes_per_element(c.dtype), ch = heads(c).conv_dim(), d = double(c.d_conv);
    return e * (double(in.batch) * ch * (2.0 + 2.0 * (d - 1)) + ch * d) + 4.0 * double(in.batch);
  }

  // A streaming elementwise kernel with SiLU (every byte read or written once): the
  // activation curve's bandwidth and launch floor.
  static Metrics roofline(const Roofline& rf, const Config& c, const Input& in) {
    return rf.memory_bound(flops(c, in), bytes(c, in), ElementwiseKind::activation);
  }
  // The taps and SiLU run in fp32 on the CUDA cores whatever the storage dtype.
  static double lower_bound_s(const Roofline& rf, const Config& c, const Input& in) {
    return rf.lower_bound_s(flops(c, in), bytes(c, in), Dtype::fp32);
  }

  static std::vector<Input> sweep(const Config&) { return detail::gdn_decode_sweep<Input>(); }
  static std::vector<std::string> default_backends() { return {"sglang", "vllm", "trtllm"}; }

  static void validate(const Config& c) {
    heads(c).validate(kind, c.dtype);
    detail::validate_conv_width(kind, c.d_conv.value);
  }
};

}  // namespace costdsl::kernels

COSTDSL_KERNEL_COMPILED_ONCE(GdnConv1dDecode);
