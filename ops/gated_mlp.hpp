#pragma once
// L2: the per-rank slots of a gated MLP, shared by the worklets mlp_local and mlp_block_tp
// so that tp = 1 gives the local leaves by construction:
//   post_norm → up_gate_proj (n = 2·I) → activation (SiLU·mul over I) → down_proj (k = I)
// where I is the intermediate size on this rank. R (a worklet's Resolved) provides
// hidden, intermediate_per_rank and up_gate_n.
#include <cstdint>

#include "costdsl/detail/tuple.hpp"
#include "costdsl/dim_expr.hpp"
#include "costdsl/dtype.hpp"
#include "costdsl/inputs.hpp"
#include "costdsl/kernel.hpp"
#include "costdsl/kernels/gemm.hpp"
#include "costdsl/kernels/rms_norm.hpp"
#include "costdsl/kernels/silu_and_mul.hpp"
#include "costdsl/leaf.hpp"
#include "costdsl/ops/projection_dtypes.hpp"
#include "costdsl/timing.hpp"

namespace costdsl::ops {

// dtype: the activations'; proj: the projections' weights and inputs (worklets/detail/weight_dtype.hpp).
template <class R>
auto gated_mlp_slots(const Timing& t, Dtype dtype, const ProjectionDtypes& proj, const R& r) {
  using namespace kernels;
  return costdsl::detail::make_tuple(
      leaf<"post_norm">(Kernel<RmsNorm>(t, {dtype, to_dim(r.hidden)})),
      leaf<"up_gate_proj">(Kernel<Gemm>(t, {proj.weights, to_dim(r.up_gate_n), to_dim(r.hidden), proj.from_norm})),
      leaf<"activation">(Kernel<SiluAndMul>(t, {dtype, to_dim(r.intermediate_per_rank)})),
      leaf<"down_proj">(
          Kernel<Gemm>(t, {proj.weights, to_dim(r.hidden), to_dim(r.intermediate_per_rank), proj.from_activation})));
}

// m = rows through the MLP.
inline auto gated_mlp_slot_inputs(std::uint64_t m) {
  return costdsl::inputs(input<"post_norm">(kernels::RmsNorm::Input{m}), input<"up_gate_proj">(kernels::Gemm::Input{m}),
                         input<"activation">(kernels::SiluAndMul::Input{m}),
                         input<"down_proj">(kernels::Gemm::Input{m}));
}

}  // namespace costdsl::ops
