#pragma once
// Recipe: how the benchmark behind a measured deployment was launched, the server's flags
// and the client's load, where the deployments table does not say but the row's
// provenance does. A deployment's TTFT depends on these as much as on its kernels: the
// same Llama-3.1-70B on one B200 measured 383 ms at ISL 1024 / OSL 1024 and 104 ms at
// ISL 1024 / OSL 8192, because the first run held prompts back for fuller batches and
// the second did not; SGLang streamed a first token with the 30th.
//
// Two harnesses produced the silicon sample's rows:
// - aiconfigurator's benchmark generator (the default; the sample's own runs): aiperf with
//   a drained warm-up and 20 requests per client at fixed lengths, the engine at the
//   framework's defaults with max_num_tokens = batch cap + ISL + 1500 and a CUDA graph
//   for every batch size up to the cap
//   (src/aiconfigurator/generator/rule_plugin/benchmark/*.rule at aiconfigurator 095f58a).
// - SemiAnalysis InferenceX: rows exported as source_file=2026-04-06.csv or 2026-03-25.csv,
//   or from its results database (db-dump/...; the two hold the same runs). Aggregated:
//   one launch script per model, GPU, precision and framework, and one client
//   (benchmarks/benchmark_lib.sh run_benchmark_serving: vLLM's benchmark_serving.py with
//   --random-range-ratio 0.8 from the sweep configs, --num-prompts 10 × CONC,
//   --max-concurrency CONC, --num-warmups 2 × CONC or a single test prompt before them).
//   The scripts read so far set the server flags below; an InferenceX row of a script not
//   read runs the client with the framework's defaults. Each flag names the script and
//   the InferenceX commit it was read at; they held over the dates each rule covers (the
//   scripts' git history, 2025-10 to 2026-04). Disaggregated: the same client through
//   srt-slurm's sa-bench, each deployment's layout from the sweep config (DisaggHarness).
#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "costdsl/quantization.hpp"
#include "costdsl/serve/server_config.hpp"

namespace costdsl::cli::deployments {

struct Recipe {
  std::string_view harness = "aiconfigurator";  // who launched the benchmark
  std::string_view source;                      // where the settings below were read
  // The client: requests measured per client, after a warm-up that drained; each
  // request's lengths drawn uniformly from ratio × L .. L.
  std::uint32_t rounds = 20;
  double min_length_ratio = 1;
  // The server. token_budget 0: the framework's default where framework_budget, else
  // aiconfigurator's rule (batch cap + ISL + 1500).
  std::uint32_t token_budget = 0;
  bool framework_budget = false;
  std::uint32_t batch_wait_iters = 0;
  double batch_wait_tokens_ratio = 0;
  std::uint32_t stream_interval = 1, recv_interval = 1;
  // Share of GPU memory kept from weights and KV; negative: the framework's (SGLang's
  // --mem-fraction-static f keeps 1 - f).
  double reserve_fraction = -1;
  // framework_graphs: decode batches padded to the framework's default captured sizes;
  // else to cuda_graph_batches (empty: a graph for every size, nothing padded).
  bool framework_graphs = false;
  std::vector<std::uint32_t> cuda_graph_batches;
  // Prompt iterations up to this many tokens replay captured piecewise graphs (TensorRT-LLM's
  // torch_compile_config capture_num_tokens); unset: the framework's.
  std::optional<std::uint32_t> graph_prefill_tokens;
  // Kernel kinds the deployment ran with a kernel no shipped table measures: their leaves
  // take the roofline (Timing::with_roofline_kinds), not another kernel's measurements.
  std::vector<std::string> roofline_kinds;
  // A per-tensor fp8 checkpoint with static activation scales: the kernels the framework, as
  // launched, fused the projections' quantize into (Quantization's fp8_from_*); unset: none.
  std::optional<Quantization::Fp8Producers> fp8_producers;
  // mxfp4 experts run W4A8: trtllm-gen's MXFP4 x MXFP8 kernel (Quantization's
  // expert_fp8_activations), which TensorRT-LLM's TRTLLM MoE backend launches on Blackwell.
  bool expert_fp8_activations = false;
  // The KV cache's dtype where the script sets it (unset: --kv-dtype's policy decides).
  std::optional<Dtype> kv_dtype;
  // Speculative decoding: draft tokens a step (multi-token prediction; 0, off).
  std::uint32_t draft_tokens = 0;

  // Lays the launch flags over a framework's defaults (the token budget is the caller's).
  // SGLang's stream interval does not apply to a scheduler that lags its first token
  // (TensorRT-LLM's, which streams a first token whatever its interval).
  void launch(serve::ServerConfig& s) const {
    if (!framework_graphs) s.cuda_graph_batches = cuda_graph_batches;
    s.batch_wait_iters = batch_wait_iters;
    s.batch_wait_tokens_ratio = batch_wait_tokens_ratio;
    if (!s.lagged_first_token) s.stream_interval = stream_interval;
    s.recv_interval = recv_interval;
    if (reserve_fraction >= 0) s.reserve_fraction = reserve_fraction;
    if (graph_prefill_tokens) s.graph_prefill_tokens = *graph_prefill_tokens;
    s.draft_tokens = draft_tokens;
  }
};

// Whether a row's source_file names one of InferenceX's exports (its dated files, or its
// results database: "db-dump").
inline bool inferencex_export(std::string_view source_file) {
  return source_file == "2026-04-06.csv" || source_file == "2026-03-25.csv" || source_file == "db-dump";
}

// What a row's provenance says about it (silicon_data_source and the layout columns).
struct Provenance {
  std::string_view source_file;  // source_file=…, "db-dump" for the database rows; empty where not recorded
  std::string_view measured;     // measured=YYYY-MM-DD; empty where not recorded
  std::string_view model_path, backend, system, precision;
  std::uint32_t isl = 0, osl = 0, tp = 1, clients = 1;
  bool aggregated = true;
  std::uint32_t gpus = 1, ep = 1;  // the (decode or aggregated) worker's GPUs and experts' EP
  std::string_view backend_version;  // the framework's release (backend_version); empty where not recorded
};

namespace detail {
// TensorRT-LLM's CUDA-graph batch sizes with padding on, up to max_batch_size: 1, 2, 4,
// 8 … 128 by 8, the powers of two from 256 below max_batch_size, and max_batch_size
// (tensorrt_llm/llmapi/llm_args.py, CudaGraphConfig._generate_cuda_graph_batch_sizes,
// release 1.1).
inline std::vector<std::uint32_t> trtllm_padded_graphs(std::uint32_t max_batch_size) {
  std::vector<std::uint32_t> sizes{1, 2, 4};
  for (std::uint32_t b = 8; b <= 128; b += 8) sizes.push_back(b);
  for (std::uint32_t b = 256; b < max_batch_size; b *= 2) sizes.push_back(b);
  std::erase_if(sizes, [&](std::uint32_t b) { return b > max_batch_size; });
  if (sizes.empty() || sizes.back() != max_batch_size) sizes.push_back(max_batch_size);
  return sizes;
}

inline bool has(std::string_view s, std::string_view part) { return s.find(part) != std::string_view::npos; }

// The vLLM scripts launched with --max-num-batched-tokens "$((ISL * 2))", from the commit
// that brought it: MiniMax-M2.5 fp8 on B200 from its upgrade (bddbf4031, 2026-04-03), fp4 on
// B200 from its first script (79bd988e9, 2026-04-08), both on B300 from theirs (340d7854c,
// 22d0f12f7, 2026-04-17; B300 rows of earlier dates ran a script not on main); Kimi-K2.5
// fp4 on B200 from 6c3acebfa (2026-04-20). Before them, vLLM's default.
inline bool budget_twice_isl(const Provenance& p) {
  if (has(p.model_path, "MiniMax-M2.5"))
    return p.measured >= (p.system == "b300_sxm" ? "2026-04-17" : p.precision == "fp4" ? "2026-04-08" : "2026-04-03");
  if (has(p.model_path, "Kimi-K2.5"))
    return p.system == "b200_sxm" && p.precision == "fp4" && p.measured >= "2026-04-20";
  return false;
}
}  // namespace detail

// The recipe of the row's harness; aiconfigurator's unless the provenance names InferenceX.
inline Recipe recipe_for(const Provenance& p) {
  using detail::has;
  Recipe r;
  r.source = "aiconfigurator 095f58a: src/aiconfigurator/generator/rule_plugin/benchmark/*.rule, "
             "generator/config/backend_templates/benchmark/bench_run.sh.j2";
  const bool inferencex = !p.measured.empty() && inferencex_export(p.source_file);
  if (!inferencex) return r;
  r.harness = "inferencex";
  r.rounds = 10;
  r.min_length_ratio = 0.8;
  r.source = "InferenceX: benchmarks/benchmark_lib.sh (the client); the framework's defaults (no script read)";
  r.framework_budget = true;
  r.framework_graphs = true;
  if (!p.aggregated) {
    // Multi-node runs go through srt-slurm's sa-bench, the same client with the same
    // defaults (--random-range-ratio 0.8, 10 × CONC prompts, 2 × CONC warm-ups:
    // src/srtctl/benchmarks/scripts/sa-bench/bench.sh); the layout is the sweep config's
    // (DisaggHarness, with each role's experts' kernel from its srt-slurm recipe), the
    // engines' other flags the frameworks' defaults.
    r.source = "InferenceX .github/configs/nvidia-master.yaml (the layout); srt-slurm sa-bench (the client); "
               "the framework's defaults (no recipe read but its experts' kernel)";
    // TensorRT-LLM's fp8 recipes pick the experts' kernel per worker (moe_config.backend,
    // DisaggHarness's prefill_ / decode_moe_backend): DEEPGEMM, WIDEEP or CUTLASS on 173 of
    // the 229 entries' prefill workers and 144 of their decode workers. The fused-MoE
    // tables time trtllm-gen's kernel (FlashInfer's, SGLang's table), whose per-token cost
    // over every gathered token is not DeepGEMM's: the experts take the roofline on both
    // roles (the TRTLLM roles on the table measured worse: docs/accuracy.md).
    if (p.backend == "trtllm" && has(p.model_path, "gpt-oss")) {
      r.expert_fp8_activations = true;
      r.source = "InferenceX .github/configs/nvidia-master.yaml (the layout); srt-slurm sa-bench (the client); "
                 "TensorRT-LLM's TRTLLM MoE backend on Blackwell (gpt-oss's experts as W4A8 MXFP4 x MXFP8, "
                 "trtllm-gen's kernel: FlashInfer's, SGLang's table); the framework's defaults";
    } else if (p.backend == "trtllm" && p.precision == "fp8") {
      r.roofline_kinds = {"fused_moe"};
      r.source = "InferenceX .github/configs/nvidia-master.yaml (the layout); srt-slurm sa-bench (the client); "
                 "srt-slurm recipes/trtllm/*-fp8 moe_config.backend (the experts' kernel); the framework's "
                 "defaults";
    }
    return r;
  }
  const std::string_view m = p.model_path;
  const bool blackwell = p.system == "b200_sxm" || p.system == "b300_sxm";
  const std::uint32_t recv_by_clients = p.clients >= 16 ? 30 : 10;  // SCHEDULER_RECV_INTERVAL: 30 from 16 clients
  if (has(m, "Llama-3.1-70B") && p.measured < "2025-10-30") {
    // Deleted 2025-10-29 (0b5620ec); the scripts at its parent. The fp8 runs served
    // nvidia/Llama-3.3-70B-Instruct-FP8 (.github/workflows/70b-tmpl.yml there): ModelOpt's per-tensor
    // fp8 with static activation scales, whose quantize the frameworks fuse into the kernel
    // before each projection where they can. An all-reduce's fused residual + RMSNorm +
    // quantize exists with TP > 1 only.
    const bool fused_norm = p.tp > 1;
    if (p.backend == "trtllm") {
      // TensorRT-LLM 1.1.0rc2 (tensorrt_llm/_torch/models/modeling_llama.py, modules/gated_mlp.py,
      // modules/attention.py): the all-reduce's RESIDUAL_RMS_NORM_QUANT_FP8 fusion, SwiGLU with
      // down_proj's input scale, the attention writing o_proj's fp8 input.
      r.fp8_producers = Quantization::Fp8Producers{fused_norm, true, true};
      r.source = "InferenceX 9596d23d74e9: benchmarks/70b_{fp8,fp4}_b200_trt_{docker,slurm}.sh";
      r.framework_budget = r.framework_graphs = false;
      r.token_budget = 16384;  // --max_num_tokens 16384
      if (p.isl == 1024 && p.osl == 1024 && p.tp < 8) {  // batch_wait_max_tokens_ratio 0.9, batch_wait_timeout_iters 20
        r.batch_wait_iters = 20;
        r.batch_wait_tokens_ratio = 0.9;
      }
      r.cuda_graph_batches = detail::trtllm_padded_graphs(1024);  // enable_padding, max_batch_size 1024
    } else if (p.backend == "vllm") {
      r.source = "InferenceX 9596d23d74e9: benchmarks/70b_{fp8,fp4}_b200_docker.sh, 70b_fp8_h100_docker.sh";
      r.framework_budget = false;
      r.token_budget = 8192;  // max-num-batched-tokens: 8192
      // B200's compilation-config: cudagraph_mode FULL_DECODE_ONLY, splitting_ops []: only
      // decode-only batches replay a graph, every iteration with prompt rows runs eagerly.
      // H100's keeps vLLM's default (piecewise graphs of mixed batches).
      if (p.system == "b200_sxm") r.graph_prefill_tokens = 0;
      // vLLM 0.10.2 (vllm/config/compilation.py: PassConfig.enable_fusion off under V1). B200's
      // script turns the quantize and RMSNorm custom ops on, so Inductor fuses neither with
      // its neighbours, and the passes enable_fi_allreduce_fusion (all-reduce + RMSNorm +
      // quantize) and enable_attn_fusion (attention writing fp8): SiLU·mul stays apart. H100's
      // defaults leave both ops to torch, and Inductor compiles RMSNorm and SiLU·mul with the
      // quantize after them into one kernel each; the attention's output is quantized apart.
      r.fp8_producers = p.system == "b200_sxm" ? Quantization::Fp8Producers{fused_norm, true, false}
                                               : Quantization::Fp8Producers{true, false, true};
    }
    return r;
  }
  const bool deepseek = has(m, "DeepSeek-R1") || has(m, "DeepSeek-V3");  // the dsr1 scripts, whatever the row calls it
  if (p.backend == "sglang" && blackwell) {
    r.framework_budget = false;
    if (deepseek && p.precision == "fp8") {
      // TP 4 has its own branch from 2026-01-13 (chunk 8192, recv 10).
      r.source = "InferenceX 626932a110a2: benchmarks/single_node/dsr1_fp8_{b200,b300}.sh";
      const bool tp4 = p.tp == 4 && p.measured >= "2026-01-13";
      r.token_budget = tp4 ? 8192 : 32768;  // --chunked-prefill-size
      r.recv_interval = tp4 ? 10 : recv_by_clients;
      r.stream_interval = 30;
      r.reserve_fraction = tp4 ? 0.05 : 0.18;  // MEM_FRAC_STATIC 0.95 / 0.82
    } else if (deepseek && p.precision == "fp4") {
      r.source = "InferenceX 626932a110a2: benchmarks/single_node/dsr1_fp4_{b200,b300}.sh";
      r.token_budget = 16384;
      r.recv_interval = recv_by_clients;
      r.stream_interval = 10;
      r.reserve_fraction = 0.15;  // --mem-fraction-static 0.85
    } else if (has(m, "Qwen3.5") && p.system == "b300_sxm" && p.precision == "fp8") {
      r.source = "InferenceX a3330bb586a8: benchmarks/single_node/qwen3.5_fp8_b300.sh";
      r.token_budget = 16384;
      r.stream_interval = 50;
      r.reserve_fraction = 0.2;  // --mem-fraction-static 0.8
    } else if (has(m, "Qwen3.5")) {
      r.source = "InferenceX 626932a110a2: benchmarks/single_node/qwen3.5_{fp8,fp4}_{b200,b300}.sh";
      r.token_budget = 32768;
      r.recv_interval = recv_by_clients;
      r.stream_interval = 30;
      // MEM_FRAC_STATIC: 0.82 (fp8 on B200), 0.85 (fp4 on B200), 0.8 (fp4 on B300).
      r.reserve_fraction = p.system == "b300_sxm" ? 0.2 : p.precision == "fp8" ? 0.18 : 0.15;
    } else if (has(m, "GLM-5")) {
      r.source = "InferenceX 626932a110a2: benchmarks/single_node/glm5_{fp8,fp4}_{b200,b300}.sh";
      r.token_budget = 32768;
      r.stream_interval = 30;
      // --mem-fraction-static 0.85 (fp8), 0.9 (fp4 on B200); fp4 on B300 the default.
      if (p.precision == "fp8") r.reserve_fraction = 0.15;
      else if (p.system == "b200_sxm") r.reserve_fraction = 0.1;
    } else {
      r.framework_budget = true;
    }
  } else if (p.backend == "trtllm" && p.system == "b200_sxm") {
    if (deepseek && p.backend_version == "1.2.0rc6.post3") {
      // The MTP configs' runs: InferenceX ran TensorRT-LLM 1.2.0rc6.post3 only for
      // dsr1-{fp8,fp4}-b200-trt-mtp (.github/configs/nvidia-master.yaml from 5d517074c and
      // 0aae52d4c; the plain configs stayed on 1.2.0rc6.post2), and those rows' TPOT is
      // 0.57-0.77 of the plain runs' at the same layout and load. Their scripts: MTP 3, or 1
      // with attention DP (whose max_batch_size is CONC / 8 for fp8, CONC / 4 for fp4);
      // max_num_tokens ((MTP + 1) · max_batch_size + ISL + 64) rounded up to 64; graphs padded
      // up to max_batch_size; piecewise CUDA graphs for fp8 unless attention DP or few
      // clients, for fp4 at 1k/1k with 32 or 64 clients (128 without attention DP).
      r.source = "InferenceX 5d517074c, 0aae52d4c: benchmarks/dsr1_{fp8,fp4}_b200_trt_mtp.sh";
      r.framework_budget = r.framework_graphs = false;
      const bool dp_attention = p.gpus > p.tp;
      r.draft_tokens = dp_attention ? 1 : 3;
      const std::uint32_t per_rank = p.precision == "fp8" ? 8 : 4;
      const std::uint32_t max_batch =
          dp_attention ? (p.clients < per_rank ? p.clients : p.clients / per_rank) : p.clients;
      r.token_budget = ((r.draft_tokens + 1) * max_batch + p.isl + 64 + 63) / 64 * 64;
      r.cuda_graph_batches = detail::trtllm_padded_graphs(max_batch);
      const bool piecewise =
          p.precision == "fp8"
              ? !dp_attention && !(p.isl == 1024 && p.osl == 1024 && p.clients <= 4) &&
                    !(p.isl == 1024 && p.osl == 8192 && p.clients <= 8) &&
                    !(p.isl == 8192 && p.osl == 1024 && p.clients <= 16)
              : p.isl == 1024 && p.osl == 1024 &&
                    (p.clients == 32 || p.clients == 64 || (p.clients == 128 && !dp_attention));
      if (piecewise) r.graph_prefill_tokens = r.token_budget;
    } else if (deepseek) {
      // max_num_tokens = max(8192, CONC + ISL + 64 rounded up to 64); graphs padded up to
      // CONC; fp8 1k/1k from 64 clients also waits for fuller batches (from 2026-01-29).
      r.source = "InferenceX 626932a110a2: benchmarks/single_node/dsr1_{fp8,fp4}_b200_trt.sh (ec7bafaae, 6eecc0e66: "
                 "piecewise CUDA graphs)";
      r.framework_budget = r.framework_graphs = false;
      r.token_budget = std::max<std::uint32_t>(8192, (p.clients + p.isl + 64 + 63) / 64 * 64);
      r.cuda_graph_batches = detail::trtllm_padded_graphs(p.clients);
      if (p.precision == "fp8" && p.isl == 1024 && p.osl == 1024 && p.clients >= 64 && p.measured >= "2026-01-29") {
        r.batch_wait_iters = 40;
        r.batch_wait_tokens_ratio = 0.8;
      }
      // Piecewise CUDA graphs captured up to max_num_tokens, so no prompt iteration runs
      // eagerly: fp8 from ec7bafaae (2026-01-29) at 1k/1k and 8k/1k from 64 clients, 1k/8k
      // from 128 to 255; fp4 from 6eecc0e66 (2026-02-03) at 1k/1k on TP 8 with EP 8.
      const bool piecewise =
          p.precision == "fp8"
              ? p.measured >= "2026-01-29" &&
                    (p.osl == 1024 ? p.clients >= 64 && (p.isl == 1024 || p.isl == 8192)
                                   : p.isl == 1024 && p.osl == 8192 && p.clients >= 128 && p.clients < 256)
              : p.measured >= "2026-02-03" && p.isl == 1024 && p.osl == 1024 && p.gpus == 8 && p.ep == 8;
      if (piecewise) r.graph_prefill_tokens = r.token_budget;
    } else if (has(m, "gpt-oss")) {
      r.source = "InferenceX 626932a110a2: benchmarks/single_node/gptoss_fp4_b200_trt.sh";
      r.framework_budget = r.framework_graphs = false;
      r.token_budget = 20000;  // MAX_NUM_TOKENS=20000
      r.cuda_graph_batches = detail::trtllm_padded_graphs(p.clients);
      // moe_config backend TRTLLM: on Blackwell trtllm-gen's MXFP4 experts quantize their
      // activations to MXFP8 (W4A8); SGLang's table measures the same kernel through
      // FlashInfer (sglang_flashinfer_trtllm_moe, w4a8_mxfp4_mxfp8).
      r.expert_fp8_activations = true;
      r.kv_dtype = Dtype::fp8;  // kv_cache_config: dtype: fp8 (since ac1998a50, 2025-10-20)
    }
  } else if (p.backend == "vllm" && blackwell && detail::budget_twice_isl(p)) {
    // Their --stream-interval 20 holds no first token back (vLLM sends a request's first
    // output at once: vllm/v1/engine/output_processor.py, PR #27869); --block-size 32
    // changes nothing these rows reach (KV room to the block). Graphs captured to 2,048
    // tokens: mixed batches to 2,048 tokens replay one (decode batches above 512 run here at
    // their own size, not padded to the next multiple of 16: under 3% more rows).
    r.source = "InferenceX bddbf4031: benchmarks/single_node/minimaxm2.5_{fp8,fp4}_{b200,b300}.sh; "
               "6c3acebfa: kimik2.5_fp4_b200.sh";
    r.framework_budget = false;
    r.token_budget = 2 * p.isl;  // --max-num-batched-tokens "$((ISL * 2))"
    r.graph_prefill_tokens = 2048;  // --max-cudagraph-capture-size 2048: mixed batches to 2,048 tokens replay
  } else if (p.backend == "vllm" && has(m, "gpt-oss") && (blackwell || p.system == "h100_sxm")) {
    // The same two settings on both GPUs from the first scripts (cuda-graph-sizes 2048 until
    // vLLM renamed it max-cudagraph-capture-size).
    r.source = "InferenceX 626932a110a2: benchmarks/single_node/gptoss_fp4_{b200,h100}.sh; 9596d23d74e9: "
               "benchmarks/gptoss_fp4_{b200,h100}_docker.sh";
    r.framework_budget = false;
    r.token_budget = 8192;          // max-num-batched-tokens: 8192
    r.graph_prefill_tokens = 2048;  // max-cudagraph-capture-size: 2048
    // VLLM_USE_FLASHINFER_MOE_MXFP4_MXFP8=1 on B200: FlashInfer's trtllm-gen W4A8 experts
    // (H100's VLLM_MXFP4_USE_MARLIN=1 keeps them W4A16); kv-cache-dtype: fp8 on B200 from the
    // vLLM 0.11.2 upgrade (25506e87c, 2025-12-05), never on H100.
    r.expert_fp8_activations = blackwell;
    if (blackwell && p.measured >= "2025-12-05") r.kv_dtype = Dtype::fp8;
  }
  return r;
}

}  // namespace costdsl::cli::deployments
