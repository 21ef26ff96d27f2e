#pragma once
// One GPU's figures (an entry of data/gpus.json; loading: gpu_catalog.hpp).
#include <optional>
#include <string>
#include <vector>

#include "costdsl/detail/str.hpp"
#include "costdsl/dtype.hpp"
#include "costdsl/error.hpp"

namespace costdsl {

struct GpuSpec {
  std::string name;                  // canonical key, e.g. "h200_sxm"
  std::vector<std::string> aliases;  // other spellings GpuCatalog::find() accepts
  int sm_version = 0;                // 90 = Hopper
  int sm_count = 0;
  // Dense tensor-core peaks (fp32: the non-tensor FP32 pipe), FLOP/s; empty = no such path.
  std::optional<double> peak_bf16, peak_fp16, peak_fp8, peak_fp4, peak_fp32;
  double hbm_bandwidth = 0;         // B/s
  double hbm_capacity = 0;          // bytes
  double intra_node_bandwidth = 0;  // NVLink, B/s per GPU, one direction
  double inter_node_bandwidth = 0;  // network, B/s per GPU, one direction
  int gpus_per_node = 0;
  double p2p_latency_s = 0;
  double board_power_w = 0;
  std::string notes;

  // Peak FLOP/s on the dtype's tensor path (fp32: the FP32 pipe). Throws InputError when
  // the GPU has no such path (fp8 on A100): a guessed fallback would hide a config bug.
  double peak_flops(Dtype d) const {
    const std::optional<double>* p = path(d);
    if (p == nullptr || !p->has_value())
      throw InputError(detail::str("gpu '", name, "' (sm_", sm_version, ") has no ", costdsl::name(d),
                                   " tensor-core path"));
    return **p;
  }
  bool supports(Dtype d) const noexcept {
    const std::optional<double>* p = path(d);
    return p != nullptr && p->has_value();
  }

 private:
  const std::optional<double>* path(Dtype d) const noexcept {
    switch (d) {
      case Dtype::bf16: return &peak_bf16;
      case Dtype::fp16: return &peak_fp16;
      case Dtype::fp8: return &peak_fp8;
      case Dtype::fp8_block: return &peak_fp8;  // fp8 MMA; the block scales are applied in the epilogue of each k-block
      case Dtype::fp4: return &peak_fp4;
      case Dtype::mxfp4: return &peak_fp4;  // block-scaled fp4 MMA runs on the fp4 tensor cores (sm_100)
      case Dtype::int4: return &peak_bf16;  // W4A16: dequantized in registers, 16-bit MMA
      case Dtype::fp32: return &peak_fp32;
    }
    return nullptr;
  }
};

}  // namespace costdsl
