#pragma once
// The analytic timing source's fitted parameters, with the committed fit of
// data/roofline.json as defaults (a test checks they agree). Loading a file:
// load_roofline_params.hpp.
#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

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
    // (fp32, bf16, fp16, fp8, fp4). Only bf16 and fp8 are measured; the rest are copies.
    std::array<double, 5> eff_compute{0.8806935874635817, 0.8806935874635817, 0.8806935874635817,
                                      0.5564977502175218, 0.5564977502175218};
    double eff_tile_m64 = 0.9591363860366908;  // relative efficiency of 64-row tiles
    double k_overhead = 121.56838334369507;    // prologue/epilogue cost per tile, in k units
    double overlap_p = 2.366349202097113;      // smooth max exponent (inf = pure max)
    SaturatingCurve memory{0.8234510393558755, 62721.12500975629, 2.8632275480610075e-06};
  } gemm;
  std::array<SaturatingCurve, elementwise_kind_count> elementwise{{
      {0.8, 5734479.168324655, 3e-06},                                         // generic
      {0.3788001102935249, 5734479.168324655, 8.139186091105536e-12},          // norm
      {0.5809085105570871, 4060858.8411998926, 1.6858357568780713e-06},        // activation
      {0.513654569225411, 889489.8552681303, 1.942335559107139e-06},           // rope
      {0.9999999992793891, 5491725.854151264, 4.7112987014833295e-12},         // residual_add
      {0.18214491524699178, 1840149.623038572, 8.275406478941681e-07},         // embedding
      {0.8, 5734479.168324655, 3e-06},                                         // kv_append
      {0.8, 16008321.036399364, 0.0},                                          // quantize
  }};
  struct Attention {  // NOT calibrated: no measured attention data here
    double eff_compute_prefill = 0.6;  // FlashAttention-class prefill, fraction of peak
    double eff_mem_decode = 0.75;      // decode, fraction of HBM bw on KV bytes
    double floor_s = 5e-6;
  } attention;
  struct Collective {  // ring collectives inside one fabric
    double alpha_s = 2.2465365701200668e-05;            // α(n) = alpha_s + alpha_per_log2_s·log2 n
    double alpha_per_log2_s = 1.5790053874289614e-06;
    double eff_max = 0.7466474507286618;
    double sat_bytes = 2193147.5174896964;  // on the bus bytes
  } collective;
  LinkCurve p2p_intra_node{7.672257835902387e-06, 0.7947024744000051, 293.0244375900252};
  LinkCurve p2p_inter_node{1.9870949912761014e-05, 0.7175862363280084, 808.1487771028997};
  struct Energy {  // NOT calibrated
    // power = board_power · (idle + (1 − idle) · activity), activity = the larger of the
    // compute and bandwidth utilisations of the interval (0..1).
    double idle_power_fraction = 0.3;
  } energy;
};

}  // namespace costdsl
