#pragma once
// Microsoft vidur's H100 measurements (MIT; calibration/vidur_h100/, see its README) as
// costdsl kernel calls: the per-op medians of one Llama-2-70B block (llama2_70b_mlp.csv:
// RMSNorm, SiLU·mul, rope, residual add, embedding; fp16, one TP rank's shard) and NCCL
// send/recv (dgx_send_recv.csv). The roofline's elementwise curves and p2p links are
// fitted on them (`costdsl roofline serve`, scripts/calibrate_roofline.py). Each op maps
// to the kernel costdsl runs for it, so a curve is fitted on that kernel's own bytes.
//
// Reading is strict as for aiconfigurator's tables (a malformed cell is a DataError
// FILE:LINE:COL naming column, value and rule); a measurement that is no usable time
// (NaN, 0, negative) is a counted skip.
#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include <fmt/format.h>

#include "aiconfigurator.hpp"  // aic::Call, aic::Skips, aic::detail::Cells
#include "costdsl/detail/read_text_file.hpp"
#include "named_csv_rows.hpp"
#include "costdsl/kernels/embedding.hpp"
#include "costdsl/kernels/p2p.hpp"
#include "costdsl/kernels/rms_norm.hpp"
#include "costdsl/kernels/rope.hpp"
#include "costdsl/kernels/silu_and_mul.hpp"
#include "costdsl/roofline.hpp"

namespace costdsl::vidur {

// vidur's `add`: y = a + b over tokens × hidden (read two, write one). costdsl runs no lone
// residual add (its blocks fuse it into fused_add_rms_norm); the residual_add curve fitted
// on this op times the k-input adds (moe_sum, merge_attn_states).
struct ResidualAdd {
  static constexpr std::string_view kind = "residual_add";
  Dtype dtype = Dtype::fp16;
  std::uint64_t hidden = 0, tokens = 0;

  double flops() const { return double(tokens) * double(hidden); }
  double bytes() const { return bytes_per_element(dtype) * 3.0 * double(tokens) * double(hidden); }
  Metrics roofline(const Roofline& rf) const { return rf.memory_bound(flops(), bytes(), ElementwiseKind::residual_add); }
};

using Call = std::variant<aic::Call<kernels::RmsNorm>, aic::Call<kernels::SiluAndMul>, aic::Call<kernels::Rope>,
                          aic::Call<kernels::Embedding>, ResidualAdd, aic::Call<kernels::P2p>>;

struct Row {
  Call call;
  double time_ms = 0;
  std::string where;  // FILE:LINE
};

struct ReadResult {
  std::vector<Row> rows;
  aic::Skips skips;
};

namespace detail {

// A config the kind rejects is a counted skip, as in the aiconfigurator importer.
template <KernelDef K>
std::optional<Call> make(typename K::Config c, typename K::Input in, std::string& why) {
  try {
    if constexpr (requires { K::validate(c); }) K::validate(c);
  } catch (const ConfigError& e) {
    why = fmt::format("{} config rejected: {}", K::kind, e.what());
    return std::nullopt;
  }
  return Call(aic::Call<K>{c, in, K::point(c, in)});
}

}  // namespace detail

// The ops of llama2_70b_mlp.csv that are no GEMM, in the block's order. Rows are returned
// op by op (every row's norm, then every row's rope, ...).
inline constexpr std::string_view mlp_ops[] = {"emb", "input_layernorm", "attn_rope", "post_attention_layernorm",
                                               "mlp_act", "add"};

inline ReadResult read_mlp(const std::filesystem::path& path) {
  const std::string file = path.string();
  const std::string text = costdsl::detail::read_text_file(path, "vidur table");
  std::vector<std::string_view> required{"num_tokens", "num_tensor_parallel_workers", "n_embd", "n_expanded_embd",
                                         "n_head", "n_kv_head", "vocab_size"};
  std::vector<std::string> medians;
  for (std::string_view op : mlp_ops) medians.push_back(fmt::format("time_stats.{}.median", op));
  for (const auto& m : medians) required.push_back(m);
  ReadResult res;
  for (std::size_t o = 0; o < std::size(mlp_ops); ++o) {
    const std::string_view op = mlp_ops[o];
    cli::for_each_named_row(text, file, required, "a vidur table", [&](std::size_t, const aic::detail::Cells& r) {
      std::string why;
      const std::optional<double> ms = r.time(medians[o], why);
      if (!ms) {
        res.skips.add(why, r.where(medians[o]));
        return;
      }
      const std::uint64_t tokens = r.count("num_tokens"), tp = r.count("num_tensor_parallel_workers"),
                          hidden = r.count("n_embd"), inter = r.count("n_expanded_embd"), qo = r.count("n_head"),
                          kv = r.count("n_kv_head"), vocab = r.count("vocab_size");
      // The measured shard: heads, the FFN and the vocabulary split tp ways.
      if (tp == 0 || qo == 0 || qo % tp != 0 || kv % tp != 0 || inter % tp != 0 || hidden % qo != 0) {
        res.skips.add("tp must divide n_head, n_kv_head and n_expanded_embd, and n_head must divide n_embd",
                      r.where("num_tensor_parallel_workers"));
        return;
      }
      constexpr Dtype fp16 = Dtype::fp16;  // the README: fp16 throughout
      std::optional<Call> call;
      if (op == "input_layernorm" || op == "post_attention_layernorm")
        call = detail::make<kernels::RmsNorm>({fp16, hidden}, {tokens}, why);
      else if (op == "mlp_act")
        call = detail::make<kernels::SiluAndMul>({fp16, inter / tp}, {tokens}, why);
      else if (op == "attn_rope")
        call = detail::make<kernels::Rope>({fp16, qo / tp, kv / tp, hidden / qo}, {tokens}, why);
      else if (op == "emb")
        call = detail::make<kernels::Embedding>({fp16, (vocab + tp - 1) / tp, hidden}, {tokens}, why);
      else
        call = Call(ResidualAdd{fp16, hidden, tokens});
      if (!call) {
        res.skips.add(why, r.where());
        return;
      }
      res.rows.push_back({std::move(*call), *ms, r.where()});
    });
  }
  return res;
}

// send_recv between two ranks: devices_per_node = num_workers puts the pair in one node
// (NVLink); 1 puts each rank in its own node. The P2p kernel's num_gpus is the span the
// pair lives in: the ranks themselves in one node, whole nodes of max_devices_per_node
// GPUs across nodes, so Roofline::collective picks the link the measurement crossed.
inline ReadResult read_send_recv(const std::filesystem::path& path) {
  const std::string file = path.string();
  const std::string text = costdsl::detail::read_text_file(path, "vidur table");
  const std::string median = "time_stats.send_recv.median";
  ReadResult res;
  cli::for_each_named_row(
      text, file, {"num_workers", "size", "collective", "devices_per_node", "max_devices_per_node", median},
      "a vidur table", [&](std::size_t, const aic::detail::Cells& r) {
        if (r.text("collective") != "send_recv") {
          res.skips.add(fmt::format("collective {}: only send_recv is read", r.text("collective")),
                        r.where("collective"));
          return;
        }
        std::string why;
        const std::optional<double> ms = r.time(median, why);
        if (!ms) {
          res.skips.add(why, r.where(median));
          return;
        }
        const std::uint64_t workers = r.count("num_workers"), per_node = r.count("devices_per_node"),
                            node_size = r.count("max_devices_per_node"), bytes = r.count("size");
        if (workers != 2 || per_node == 0 || per_node > node_size) {
          res.skips.add("a send/recv pair is 2 workers with 1 <= devices_per_node <= max_devices_per_node",
                        r.where("num_workers"));
          return;
        }
        const std::uint64_t span = per_node >= workers ? workers : (workers + per_node - 1) / per_node * node_size;
        std::optional<Call> call = detail::make<kernels::P2p>({span}, {bytes}, why);
        if (!call) {
          res.skips.add(why, r.where());
          return;
        }
        res.rows.push_back({std::move(*call), *ms, r.where()});
      });
  return res;
}

}  // namespace costdsl::vidur
