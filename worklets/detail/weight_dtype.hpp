#pragma once
// The dtype a form's weights are stored and multiplied in, per component: the form's
// gemm_dtype (dense and attention projections) or expert_dtype (routed experts) where it
// has one, a quantized deployment's run-time config; else its activation dtype (the
// static forms, which run unquantized unless they say otherwise).
#include <string>
#include <string_view>

#include "costdsl/dtype.hpp"
#include "costdsl/error.hpp"
#include "costdsl/form.hpp"
#include "costdsl/ops/projection_dtypes.hpp"

namespace costdsl::worklets {

template <class Form>
constexpr Dtype gemm_weight_dtype(const Form& form) {
  if constexpr (requires { values(form).gemm_dtype; }) {
    return values(form).gemm_dtype;
  } else {
    return values(form).dtype;
  }
}

// The projections' weights and the activations each receives from its producer: a
// quantized deployment's (its Quantization, fp8 where a producer's quantize is fused), else
// unquantized activations into the form's weights.
template <class Form>
constexpr ops::ProjectionDtypes projection_dtypes(const Form& form) {
  if constexpr (requires { values(form).fp8_from_norm; }) {
    return ops::ProjectionDtypes::of(values(form).quantization());
  } else {
    return ops::ProjectionDtypes::of_weights(gemm_weight_dtype(form));
  }
}

// A worklet whose projections do not take ProjectionDtypes (MLA's low-rank projections, the
// GDN layer's) refuses producers that would leave them quantizing their own input.
template <class Form>
void check_no_fp8_producers(const Form& form, std::string_view worklet) {
  if constexpr (requires { values(form).fp8_from_norm; }) {
    if (values(form).quantization().fp8_producers().any())
      throw ConfigError(std::string(worklet) + ": fp8 producers (" + values(form).quantization().producers_text() +
                        ") are modelled for the attention, gated-MLP and shared-expert projections; this layer's "
                        "projections quantize their own input (--fp8-from none)");
  }
}

template <class Form>
constexpr Dtype expert_weight_dtype(const Form& form) {
  if constexpr (requires { values(form).expert_dtype; }) {
    return values(form).expert_dtype;
  } else {
    return values(form).dtype;
  }
}

// The kernel path a GEMM over `weights` runs: the W8A8 / W4A4 formats (fp8, fp8_block,
// nvfp4) multiply in the weights' format; int4 names its own W4A16 kernels (16-bit
// activations, Dtype::int4); mxfp4 as gpt-oss ships it dequantizes to the activations'
// dtype.
constexpr Dtype gemm_input_dtype(Dtype activations, Dtype weights) noexcept {
  return weights == Dtype::fp8 || weights == Dtype::fp8_block || weights == Dtype::fp4 || weights == Dtype::int4
             ? weights
             : activations;
}

// The dtype the routed experts' GEMMs take their input in: fp8 where a W4A8 deployment
// quantizes it (MXFP8 under mxfp4 weights), else gemm_input_dtype's.
template <class Form>
constexpr Dtype expert_input_dtype(const Form& form, Dtype activations) {
  if constexpr (requires { values(form).expert_fp8_activations; }) {
    if (values(form).expert_fp8_activations) return Dtype::fp8;
  }
  return gemm_input_dtype(activations, expert_weight_dtype(form));
}

}  // namespace costdsl::worklets
