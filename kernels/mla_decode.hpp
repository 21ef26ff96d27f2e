#pragma once
// L1 mla_decode: DeepSeek-V3 multi-head latent attention, decode (per rank), in the
// weight-absorbed form (FlashMLA): W_UK is folded into the query and W_UV into the
// output projection, so every head attends directly over the compressed cache of
// kv_lora_rank + qk_rope_head_dim elements per token, shared by all heads (MQA-like):
//   QK over (kv_lora_rank + rope) dims, PV over kv_lora_rank dims, per head.
// Requests collapse into one cell as in attn_decode. `dtype` is the latent cache's.
#include <array>
#include <string>
#include <vector>

#include "costdsl/detail/str.hpp"
#include "costdsl/dim.hpp"
#include "costdsl/dtype.hpp"
#include "costdsl/kernel_def.hpp"
#include "costdsl/kernels/attn_decode.hpp"
#include "costdsl/kernels/detail/compiled_once.hpp"
#include "costdsl/reflect.hpp"

namespace costdsl::kernels {

struct MlaDecode {
  static constexpr std::string_view kind = "mla_decode";
  static constexpr Family family = Family::attention;

  struct Config {
    COSTDSL_FIELDS((Dtype, dtype), (Dim, num_heads), (Dim, kv_lora_rank), (Dim, qk_nope_head_dim),
                   (Dim, qk_rope_head_dim), (Dim, v_head_dim));
  };
  // DeepSeek-V3's dims with num_heads per rank (128 heads over the TP degree).
  static Config deepseek_v3(Dtype dtype, std::uint64_t num_heads) { return {dtype, num_heads, 512, 128, 64, 128}; }

  struct Input {
    COSTDSL_FIELDS((std::uint64_t, batch), (std::uint64_t, total_kv));
  };
  static constexpr std::array<std::string_view, 2> axes{"batch", "total_kv"};

  static std::array<double, 2> point(const Config&, const Input& in) { return {double(in.batch), double(in.total_kv)}; }
  static Input input_at(const Config&, const std::array<double, 2>& at) {
    return {costdsl::detail::count_at(at[0]), costdsl::detail::count_at(at[1])};
  }
  static constexpr interp::OffGrid off_grid = interp::OffGrid::weighted;
  // Requests and work add up: interpolate linearly (see Kernel::fit).
  static constexpr std::array<interp::AxisScale, 2> axis_scales{interp::AxisScale::linear, interp::AxisScale::linear};

  // q and o stay 16-bit activations when the latent cache is quantized.
  static Dtype act_dtype(const Config& c) { return bytes_per_element(c.dtype) < 2 ? Dtype::bf16 : c.dtype; }
  static bool idle(const Input& in) { return in.batch == 0 || in.total_kv == 0; }
  static double latent_dim(const Config& c) { return double(c.kv_lora_rank) + double(c.qk_rope_head_dim); }

  // Per cached token and head: QK^T 2·(kv_lora_rank + rope) + PV 2·kv_lora_rank flops.
  static double flops(const Config& c, const Input& in) {
    if (idle(in)) return 0;
    return 2.0 * double(c.num_heads) * double(in.total_kv) * (latent_dim(c) + double(c.kv_lora_rank));
  }
  // The latent cache once (kv_lora_rank + rope per token, all heads share it) + per
  // request the absorbed q row (heads × (kv_lora_rank + rope)) and the latent o row
  // (heads × kv_lora_rank, before W_UV).
  static double bytes(const Config& c, const Input& in) {
    if (idle(in)) return 0;
    const double h = double(c.num_heads);
    return bytes_per_element(c.dtype) * double(in.total_kv) * latent_dim(c) +
           bytes_per_element(act_dtype(c)) * double(in.batch) * h * (latent_dim(c) + double(c.kv_lora_rank));
  }

  // Absorbed MLA is MQA-like: one shared latent "KV head" for all heads, QK over the
  // latent + rope dims, PV over the latent.
  static AttentionShape shape(const Config& c, const Input& in) {
    const double avg_kv = in.batch == 0 ? 0 : double(in.total_kv) / double(in.batch);
    return {double(in.batch), avg_kv, 1, double(c.num_heads), 1, latent_dim(c), double(c.kv_lora_rank), act_dtype(c)};
  }
  static Metrics roofline(const Roofline& rf, const Config& c, const Input& in) {
    return rf.attention_decode(shape(c, in), flops(c, in), bytes(c, in));
  }
  static double lower_bound_s(const Roofline& rf, const Config& c, const Input& in) {
    return rf.lower_bound_s(flops(c, in), bytes(c, in), act_dtype(c));
  }

  // The cells attn_decode measures, capped on the latent cache's bytes per token.
  static std::vector<Input> sweep(const Config& c) {
    std::vector<Input> grid;
    for (const auto& cell : AttnDecode::sweep_cells(bytes_per_element(c.dtype) * latent_dim(c)))
      grid.push_back({cell.batch, cell.total_kv});
    return grid;
  }
  static std::vector<std::string> default_backends() { return {"flashmla", "sglang", "vllm", "trtllm"}; }

  static void validate(const Config& c) {
    auto check = [](std::string_view field, std::uint64_t v, std::uint64_t max) {
      if (v == 0 || v > max) throw ConfigError(costdsl::detail::str("mla_decode: ", field, " ", v, " must be in 1..", max));
    };
    check("num_heads", c.num_heads, 1024);
    check("kv_lora_rank", c.kv_lora_rank, 8192);
    check("qk_nope_head_dim", c.qk_nope_head_dim, 1024);
    check("qk_rope_head_dim", c.qk_rope_head_dim, 1024);
    check("v_head_dim", c.v_head_dim, 1024);
  }
};

}  // namespace costdsl::kernels

COSTDSL_KERNEL_COMPILED_ONCE(MlaDecode);
