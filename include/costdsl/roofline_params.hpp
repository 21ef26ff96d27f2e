#pragma once
// The analytic timing source's fitted parameters, with the committed fit of
// data/roofline.json as defaults (a test checks they agree). Loading a file:
// load_roofline_params.hpp.
#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "costdsl/dtype.hpp"

namespace costdsl {

// Memory-bound op classes with their own fitted curve (their kernels reach very
// different fractions of HBM bandwidth: a 2024 RMSNorm ~38%, a residual add ~100%).
enum class ElementwiseKind : std::uint8_t {
  generic,       // aiconfigurator's constants (0.8 of HBM bw + 3 µs); not measured here
  norm,          // RMSNorm / LayerNorm
  activation,    // SiLU·mul and friends
  rope,          // rotary embedding on q and k
  residual_add,  // residual add
  embedding,     // token-embedding gather
  kv_append,     // KV-cache append (not measured: generic values)
  quantize,      // per-token activation quantization before an fp8 GEMM
};
inline constexpr std::size_t elementwise_kind_count = 8;
inline constexpr std::array<std::string_view, elementwise_kind_count> elementwise_kind_names{
    "generic", "norm", "activation", "rope", "residual_add", "embedding", "kv_append", "quantize"};

// A saturating bandwidth curve plus a constant floor: time = floor + sat_time(B, bw, eff_max, sat).
struct SaturatingCurve {
  double eff_max = 0.8;     // efficiency reached by large transfers, in (0, 1]
  double sat_bytes = 4e6;   // size scale over which efficiency builds up
  double floor_s = 3e-6;    // launch / fixed latency
};

struct LinkCurve {
  double alpha_s = 10e-6;   // latency (α of the alpha-beta model)
  double eff_max = 0.8;     // fraction of link bandwidth reached by large messages
  double sat_bytes = 1e6;
};

// All fitted parameters. Defaults = the committed fit of data/roofline.json.
struct RooflineParams {
  struct Gemm {
    // Achieved fraction of the dtype's peak on the best tile, indexed by Dtype
    // (fp32, bf16, fp16, fp8, fp4, mxfp4, fp8_block, int4). Only bf16 and fp8 are measured;
    // the rest are copies (int4, dequantized to 16 bits, bf16's).
    std::array<double, all_dtypes.size()> eff_compute{0.8133367567300209, 0.8133367567300209, 0.8133367567300209,
                                                      0.5634311535199823, 0.5634311535199823, 0.5634311535199823,
                                                      0.5634311535199823, 0.8133367567300209};
    double eff_tile_m64 = 0.9736826840233621;  // relative efficiency of 64-row tiles
    double k_overhead = 91.02326564342927;    // prologue/epilogue cost per tile, in k units
    double overlap_p = 2.0083095541063534;      // smooth max exponent (inf = pure max)
    SaturatingCurve memory{0.8381760197715438, 38544.46322724898, 3.5812995465276483e-06};
  } gemm;
  std::array<SaturatingCurve, elementwise_kind_count> elementwise{{
      {0.8, 5737752.769528468, 3e-06},  // generic
      {0.3788853869762741, 5737752.769528468, 3.5285859150804693e-13},  // norm
      {0.5809482543569491, 4072401.9328562315, 1.6819325688878355e-06},  // activation
      {0.5137536713967926, 887687.0147143938, 1.9438727060008297e-06},  // rope
      {0.9999999999986287, 5495046.633286611, 6.245819905849404e-14},  // residual_add
      {0.18217710867322034, 1833326.9845178246, 8.373080771435405e-07},  // embedding
      {0.8, 5737752.769528468, 3e-06},  // kv_append
      {0.8, 11023952.701552004, 0.0},  // quantize
  }};
  // Attention as FlashAttention-class kernels run it: work in Tq × Tk tiles (see
  // Roofline::attention_prefill / attention_decode for the formulas).
  struct Attention {
    double eff_compute_prefill = 0.660797891732455;      // fraction of the bf16/fp16 peak on the tiled prefill work
    double eff_compute_prefill_fp8 = 0.33151557668669945;  // the same for fp8 attention
    double prefill_tile_s = 4.433857131452687e-06;          // per query tile on one SM: load Q, softmax epilogue, store O
    double eff_mem = 0.8529054173215116;                  // Q/K/V/O bytes at this fraction of HBM bandwidth...
    double mem_sat_bytes = 4608.884841838264;            // ...reached by transfers well above this size
    double decode_tile_s = 2.4627381776054922e-06;           // per (request, KV head) work tile of a decode step, on one SM
    double overlap_p = 1.8572349962709165;                // smooth max exponent of memory vs tile time
    double floor_s = 1.3199738949783818e-05;                 // launch and setup
  } attention;
  struct Collective {  // NCCL ring collectives inside one fabric
    double alpha_s = 4.845992118042454e-06;            // α(n) = alpha_s + alpha_per_log2_s·log2 n
    double alpha_per_log2_s = 6.0211860767103235e-06;
    double eff_max = 0.5899497584254306;
    double sat_bytes = 26.29783043746513;  // on the bus bytes
  } collective;
  // The serving frameworks' own one-shot/two-shot all-reduce over NVLink (SGLang, vLLM under
  // CUDA graphs): used instead of NCCL while the message fits its buffer and the group
  // fits one NVLink domain of at most max_gpus.
  struct CustomAllReduce {
    double alpha_s = 3.4699341425485546e-06;
    double alpha_per_gpu_s = 2.676087352948969e-07;  // α(n) = alpha_s + alpha_per_gpu_s·n: every rank reads every peer
    double eff_max = 0.5174596588343425;
    double sat_bytes = 843.9664762689742;           // on the bus bytes
    double max_bytes = 8388608.0;       // the frameworks' default buffer, 8 MiB (not fitted)
    double max_gpus = 8.0;              // (not fitted)
  } custom_all_reduce;
  LinkCurve p2p_intra_node{7.671381879334336e-06, 0.7945264576023685, 312.17663338650783};
  LinkCurve p2p_inter_node{1.9864355994802174e-05, 0.7175261027164094, 334.0561228578015};
  struct Energy {  // NOT calibrated
    // power = board_power · (idle + (1 − idle) · activity), activity = the larger of the
    // compute and bandwidth utilisations of the interval (0..1).
    double idle_power_fraction = 0.3;
  } energy;

};

}  // namespace costdsl
