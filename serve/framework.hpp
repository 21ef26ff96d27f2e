#pragma once
// Framework: a serving framework's scheduling defaults as ServerConfig knobs, each with
// the source file and version it was read from, so a simulated deployment behaves as
// that framework's server does when launched without scheduler flags.
//
// `ideal` is costdsl's own engine (mixed batches, chunked prefill, no front end): the
// numbers before frameworks existed, and what `plan` and `simulate` assume unless told.
//
// What differs between the three, and why it matters for a benchmark's TTFT: SGLang runs
// prefill batches alone and ahead of decoding, so the clients of a closed loop stay in
// lockstep (each round's prompts are prefilled one batch after another while nobody
// decodes) and TTFT grows with clients × prompt; vLLM and TensorRT-LLM put prompts into
// decode iterations, so the clients drift apart and a new request mostly waits for one
// iteration. TensorRT-LLM does not chunk prompts by default, and its overlap scheduler
// returns a first token one iteration after the prefill's. All three schedule ahead (the
// next batch is formed as the running one launches), so a request that reaches a busy
// engine waits for the iteration after the next.
#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "costdsl/gpu_spec.hpp"
#include "costdsl/serve/server_config.hpp"

namespace costdsl::serve {

enum class Framework : std::uint8_t { ideal, trtllm, vllm, sglang };

constexpr std::string_view name(Framework f) noexcept {
  switch (f) {
    case Framework::trtllm: return "trtllm";
    case Framework::vllm: return "vllm";
    case Framework::sglang: return "sglang";
    case Framework::ideal: break;
  }
  return "ideal";
}

// "trtllm" (or "tensorrt-llm", "tensorrt_llm"), "vllm", "sglang", "ideal"; nullopt otherwise.
inline std::optional<Framework> parse_framework(std::string_view s) noexcept {
  for (const Framework f : {Framework::ideal, Framework::trtllm, Framework::vllm, Framework::sglang})
    if (s == name(f)) return f;
  if (s == "tensorrt-llm" || s == "tensorrt_llm") return Framework::trtllm;
  return std::nullopt;
}

struct FrameworkDefaults {
  Framework framework = Framework::ideal;
  std::string_view version;  // of the sources below
  ServerConfig server;       // max_seqs is left to the deployment (its batch cap)
  // Where each knob's default comes from: file and version.
  std::string_view max_batch_tokens_source, batching_source, chunked_prefill_source, kv_block_source,
      reserve_source, first_token_source, cuda_graph_source, overlap_source, eager_source;
};

namespace detail {
// Appends from, from + step, ... up to `to` to ascending sizes, skipping any not above the last.
inline void add_sizes(std::vector<std::uint32_t>& v, std::uint32_t from, std::uint32_t to, std::uint32_t step) {
  for (std::uint32_t b = from; b <= to; b += step)
    if (v.empty() || b > v.back()) v.push_back(b);
}
}  // namespace detail

// TensorRT-LLM's host time per kernel launch of an eager iteration (ServerConfig::eager_launch_s),
// fitted to the silicon sample's TensorRT-LLM rows on H100 and checked on B200's
// (docs/accuracy.md, "Eager prefills").
inline constexpr double trtllm_eager_launch_s = 55e-6;
// vLLM's: the same PyTorch host path launching a compiled model without its graph, and the
// same figure, not refitted: TensorRT-LLM's value checked on vLLM's rows (docs/accuracy.md,
// "Eager prefills").
inline constexpr double vllm_eager_launch_s = trtllm_eager_launch_s;

// The defaults of framework f on `gpu` (some depend on its memory). Sources: vLLM at
// commit 6241521 (2026-04-01, the 0.19 line; the sample ran 0.12-0.19), SGLang at commit
// 1ac74e6 (2026-04-01, between 0.5.9 and 0.5.10), TensorRT-LLM's llm_args.py of the 1.2
// line and its documentation (tensorrt_llm/llmapi/llm_args.py; docs "Paged attention,
// IFB and request scheduling").
inline FrameworkDefaults framework_defaults(Framework f, const GpuSpec& gpu) {
  FrameworkDefaults d;
  d.framework = f;
  ServerConfig& s = d.server;
  // Every framework's server tokenizes in one front-end process (vLLM's API server,
  // SGLang's TokenizerManager, TensorRT-LLM's LLM class) and hands requests to the engine
  // process one by one. 1 ms each is a modelling choice (tokenizing a few thousand
  // tokens); what matters is that simultaneous requests arrive apart (ServerConfig).
  s.frontend_s = f == Framework::ideal ? 0.0 : 1e-3;
  const double gib = gpu.hbm_capacity / (1024.0 * 1024.0 * 1024.0);
  switch (f) {
    case Framework::ideal:
      d.version = "costdsl";
      d.max_batch_tokens_source = d.batching_source = d.chunked_prefill_source = d.kv_block_source =
          d.reserve_source = d.first_token_source = d.cuda_graph_source = d.overlap_source = d.eager_source =
              "costdsl's engine (serve/worker.hpp)";
      break;
    case Framework::vllm:
      d.version = "0.19 (6241521)";
      // `vllm serve` on a GPU of at least 70 GiB other than an A100: 8192; else 2048.
      s.max_batch_tokens = gib >= 70 && gpu.name.find("a100") == std::string::npos ? 8192 : 2048;
      d.max_batch_tokens_source = "vllm/engine/arg_utils.py:2087-2106 (get_batch_defaults, OpenAI server)";
      s.batching = Batching::mixed;
      d.batching_source = "vllm/v1/core/sched/scheduler.py:348-385,563-568 (running requests, then waiting ones, "
                          "one token budget)";
      s.chunked_prefill = true;
      d.chunked_prefill_source = "vllm/engine/arg_utils.py:2141-2148 (on for generative models)";
      s.kv_block = 16;
      d.kv_block_source = "vllm/config/cache.py:35 (DEFAULT_BLOCK_SIZE)";
      s.reserve_fraction = 0.10;
      d.reserve_source = "vllm/config/cache.py:44 (gpu_memory_utilization 0.9)";
      // Async scheduling overlaps the next step's scheduling with this one's GPU work, but
      // a step's tokens go out when it ends.
      d.first_token_source = "vllm/config/vllm.py:764-797 (async_scheduling; outputs per step)";
      // With async scheduling on (the default since vLLM PR #27614, before 0.12: None
      // resolves to True but for pooling models, drafters other than EAGLE's and executors
      // without support) the engine keeps two batches in flight and schedules the next one
      // before it waits for the running one's output.
      s.overlap_scheduling = true;
      d.overlap_source = "vllm/config/vllm.py (VllmConfig.__post_init__, async_scheduling None -> True); "
                         "vllm/v1/engine/core.py (EngineCore.step_with_batch_queue: schedule, then await the "
                         "oldest batch)";
      // Captured sizes 1, 2, 4, then every 8 to 256 and every 16 to min(2 × max_num_seqs,
      // 512) = 512; a batch runs at the next captured size.
      s.cuda_graph_batches = {1, 2, 4};
      detail::add_sizes(s.cuda_graph_batches, 8, 256, 8);
      detail::add_sizes(s.cuda_graph_batches, 272, 512, 16);
      d.cuda_graph_source = "vllm/config/vllm.py:1433-1482, vllm/config/compilation.py:642-656; "
                            "vllm/v1/cudagraph_dispatcher.py:131-150 (padding)";
      // Mixed and prompt batches replay piecewise graphs up to the largest captured size
      // (min(2 × max_num_seqs, 512)) and run compiled but without a graph above it, the host
      // launching each kernel.
      s.graph_prefill_tokens = 512;
      s.eager_launch_s = vllm_eager_launch_s;
      d.eager_source = "vllm/config/vllm.py:1433-1482 (max_cudagraph_capture_size; cudagraph_mode FULL_AND_PIECEWISE)";
      break;
    case Framework::sglang: {
      d.version = "0.5.9+ (1ac74e6)";
      // chunked_prefill_size by GPU memory; a prefill batch's prompts share that many
      // tokens (max_prefill_tokens, 16384, is never the tighter limit here).
      s.max_batch_tokens = gib < 35 ? 2048 : gib < 60 ? 4096 : gib < 160 ? 8192 : 16384;
      d.max_batch_tokens_source = "python/sglang/srt/server_args.py:1124-1209 (chunked_prefill_size by GPU memory)";
      s.batching = Batching::prefill_first;
      d.batching_source = "python/sglang/srt/managers/scheduler.py:2216-2242 (get_next_batch_to_run: a new prefill "
                          "batch first); server_args.py:629 (enable_mixed_chunk False)";
      s.chunked_prefill = true;
      d.chunked_prefill_source = "python/sglang/srt/server_args.py:1124-1209 (chunked_prefill_size > 0)";
      s.kv_block = 1;
      d.kv_block_source = "python/sglang/srt/server_args.py:2534-2536 (page_size 1)";
      // mem_fraction_static = (memory - reserved) / memory, reserved (MiB) = 512 + 1.5 ×
      // chunked_prefill_size + 2 × cuda_graph_max_bs + tp × pp / 8 × 1024, at least 10 GiB
      // above 60 GB; taken at cuda_graph_max_bs 512 and tp × pp = 8.
      const double reserved_gib =
          std::max((512.0 + 1.5 * s.max_batch_tokens + 2.0 * 512 + 1024.0) / 1024.0, gib > 60 ? 10.0 : 0.0);
      s.reserve_fraction = reserved_gib / gib;
      d.reserve_source = "python/sglang/srt/server_args.py:1264-1311 (mem_fraction_static from reserved memory)";
      d.first_token_source = "python/sglang/srt/managers/scheduler.py (overlap schedule: a batch's results are "
                             "processed as the next one runs, once its tokens are on the host)";
      s.overlap_scheduling = true;
      d.overlap_source = "python/sglang/srt/server_args.py (disable_overlap_schedule False); "
                         "python/sglang/srt/managers/scheduler.py (event_loop_overlap: the next batch is launched "
                         "before the last one's results are processed)";
      // cuda_graph_bs: 1, 2, 4, 8, 12, every 8 to 256, every 16 to 496, every 32 to
      // cuda_graph_max_bs (256 below 160 GB at TP < 4, the common case; 512 above).
      s.cuda_graph_batches = {1, 2, 4, 8, 12};
      detail::add_sizes(s.cuda_graph_batches, 16, 256, 8);
      if (gib >= 160) {
        detail::add_sizes(s.cuda_graph_batches, 272, 496, 16);
        detail::add_sizes(s.cuda_graph_batches, 512, 512, 32);
      }
      d.cuda_graph_source = "python/sglang/srt/server_args.py:1148-1212,1327-1356; "
                            "model_executor/cuda_graph_runner.py:1085-1088 (padding)";
      // Prompt batches run eagerly (enable_piecewise_cuda_graph off), but the sample's
      // SGLang rows show no host floor: left at 0 (docs/accuracy.md, "Eager prefills").
      d.eager_source = "python/sglang/srt/server_args.py (enable_piecewise_cuda_graph False)";
      break;
    }
    case Framework::trtllm:
      d.version = "1.2";
      s.max_batch_tokens = 8192;
      d.max_batch_tokens_source = "tensorrt_llm/llmapi/llm_args.py (BaseLlmArgs.max_num_tokens 8192)";
      s.batching = Batching::mixed;
      d.batching_source = "docs, Paged attention, IFB and request scheduling (context and generation requests in "
                          "one in-flight batch)";
      s.chunked_prefill = false;
      d.chunked_prefill_source = "tensorrt_llm/llmapi/llm_args.py (BaseLlmArgs.enable_chunked_prefill False)";
      s.kv_block = 32;
      d.kv_block_source = "tensorrt_llm/llmapi/llm_args.py (KvCacheConfig.tokens_per_block 32)";
      // 90% of the memory left free after the weights; as a share of all memory that is
      // about 10% for the large models this matters for.
      s.reserve_fraction = 0.10;
      d.reserve_source = "tensorrt_llm/llmapi/llm_args.py (KvCacheConfig.free_gpu_memory_fraction 0.9)";
      s.lagged_first_token = true;
      d.first_token_source = "tensorrt_llm/llmapi/llm_args.py (TorchLlmArgs.disable_overlap_scheduler False); docs, "
                             "Overlap Scheduler (one more decode step of latency)";
      d.cuda_graph_source = "tensorrt_llm/llmapi/llm_args.py (CudaGraphConfig.enable_padding False: no padding)";
      // The same overlap scheduler also forms iteration n + 1's batch while n runs.
      s.overlap_scheduling = true;
      d.overlap_source = "tensorrt_llm/llmapi/llm_args.py (TorchLlmArgs.disable_overlap_scheduler False); "
                         "tensorrt_llm/_torch/pyexecutor/py_executor.py (the overlap executor loop schedules and "
                         "launches the next batch before handling the previous one's outputs)";
      // The PyTorch backend captures graphs of generation batches only: an iteration with a
      // context request runs the model eagerly, module by module, and with a few hundred
      // prompt tokens on many GPUs its host outlasts the GPU (gpt-oss-120b on B200 measures
      // the same ~40 ms TTFT at TP 1, 2, 4 and 8 while its GPU work shrinks 2×).
      s.eager_launch_s = trtllm_eager_launch_s;
      d.eager_source = "tensorrt_llm/llmapi/llm_args.py (TorchCompileConfig.enable_piecewise_cuda_graph False); "
                       "the time per launch: docs/accuracy.md, Eager prefills";
      break;
  }
  return d;
}

}  // namespace costdsl::serve
