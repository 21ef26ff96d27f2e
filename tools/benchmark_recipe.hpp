#pragma once
// Recipe: how the benchmark behind a measured deployment was launched, the server's flags
// and the client's load, where the deployments table does not say but the row's
// provenance does. A deployment's TTFT depends on these as much as on its kernels: the
// same Llama-3.1-70B on one B200 measured 383 ms at ISL 1024 / OSL 1024 and 104 ms at
// ISL 1024 / OSL 8192, because the first run held prompts back for fuller batches and
// the second did not.
//
// Two harnesses produced the silicon sample's rows:
// - aiconfigurator's benchmark generator (the default): aiperf with a drained warm-up
//   and 20 requests per client at fixed lengths (serve::PlanSpec::benchmark_rounds), the
//   engine at the framework's defaults with max_num_tokens = batch cap + ISL + 1500 and
//   a CUDA graph captured for every batch size up to the cap
//   (src/aiconfigurator/generator/rule_plugin/benchmark/*.rule at aiconfigurator 095f58a).
// - SemiAnalysis InferenceX (source_file=2026-04-06.csv): its own launch script per model,
//   GPU and framework, and vLLM's benchmark_serving.py (the kimbochen/bench_serving copy)
//   with --random-range-ratio 0.8 and --num-prompts 10 × concurrency. Only the scripts
//   read so far have a recipe here: Llama-3.1-70B's, measured in October 2025 and removed
//   from InferenceX on 2025-10-29; the file's other models keep aiconfigurator's recipe
//   until their scripts are read (docs/accuracy.md says which rows that leaves).
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace costdsl::cli::deployments {

struct Recipe {
  std::string_view harness = "aiconfigurator";  // who launched the benchmark
  std::string_view source;                      // where the settings below were read
  // The client: requests measured per client, after a warm-up that drained; each
  // request's lengths drawn uniformly from ratio × L .. L.
  std::uint32_t rounds = 20;
  double min_length_ratio = 1;
  // The server. token_budget 0: aiconfigurator's rule (batch cap + ISL + 1500).
  std::uint32_t token_budget = 0;
  std::uint32_t batch_wait_iters = 0;
  double batch_wait_tokens_ratio = 0;
  // framework_graphs: decode batches padded to the framework's default captured sizes;
  // else to cuda_graph_batches (empty: a graph for every size, nothing padded).
  bool framework_graphs = false;
  std::vector<std::uint32_t> cuda_graph_batches;
};

// What a row's provenance says about it (silicon_data_source and the layout columns).
struct Provenance {
  std::string_view source_file;  // source_file=…; empty where not recorded
  std::string_view measured;     // measured=YYYY-MM-DD…; empty where not recorded
  std::string_view model_path, backend;
  std::uint32_t isl = 0, osl = 0, tp = 1;
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
  if (sizes.back() != max_batch_size) sizes.push_back(max_batch_size);
  return sizes;
}
}  // namespace detail

// The recipe of the row's harness; aiconfigurator's unless the provenance names another.
inline Recipe recipe_for(const Provenance& p) {
  Recipe r;
  r.source = "aiconfigurator 095f58a: src/aiconfigurator/generator/rule_plugin/benchmark/*.rule, "
             "generator/config/backend_templates/benchmark/bench_run.sh.j2";
  const bool inferencex_llama70b = p.source_file == "2026-04-06.csv" && p.model_path == "meta-llama/Llama-3.1-70B" &&
                                   !p.measured.empty() && p.measured < "2025-10-30";
  if (!inferencex_llama70b) return r;
  r.harness = "inferencex";
  r.rounds = 10;  // --num-prompts $(( CONC * 10 )) --max-concurrency $CONC
  r.min_length_ratio = 0.8;  // random-range-ratio: 0.8 in .github/workflows/full-sweep-tmpl.yml
  if (p.backend == "trtllm") {
    r.source = "InferenceX 9596d23d74e9: benchmarks/70b_{fp8,fp4}_b200_trt_{docker,slurm}.sh";
    r.token_budget = 16384;  // --max_num_tokens 16384; chunked prefill and the overlap scheduler as defaults
    // The 1k/1k runs below TP 8 add batch_wait_max_tokens_ratio 0.9, batch_wait_timeout_iters 20.
    if (p.isl == 1024 && p.osl == 1024 && p.tp < 8) {
      r.batch_wait_iters = 20;
      r.batch_wait_tokens_ratio = 0.9;
    }
    r.cuda_graph_batches = detail::trtllm_padded_graphs(1024);  // cuda_graph_config: enable_padding, max_batch_size 1024
  } else {
    r.source = "InferenceX 9596d23d74e9: benchmarks/70b_{fp8,fp4}_b200_docker.sh, 70b_fp8_h100_docker.sh";
    r.token_budget = 8192;  // max-num-batched-tokens: 8192; async-scheduling; cudagraph_mode FULL_DECODE_ONLY
    r.framework_graphs = true;
  }
  return r;
}

}  // namespace costdsl::cli::deployments
