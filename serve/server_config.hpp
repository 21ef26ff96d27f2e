#pragma once
// The scheduler knobs of one serving worker.
#include <cstdint>
#include <span>
#include <vector>

namespace costdsl::serve {

// How an iteration is filled when requests are both decoding and waiting for prefill.
// mixed: the decodes first, then prefill rows in what is left of the token budget, one
// forward pass (continuous batching with chunked prefill, as vLLM's v1 scheduler and
// TensorRT-LLM's in-flight batching do). prefill_first: an iteration with prefill work
// runs only prefill, and the decodes wait until no prompt is pending (SGLang's scheduler
// without --enable-mixed-chunk). Under a closed loop the second keeps equal requests in
// lockstep: they all start decoding in the same iteration, so they finish together.
enum class Batching : std::uint8_t { mixed, prefill_first };

constexpr const char* name(Batching b) noexcept { return b == Batching::mixed ? "mixed" : "prefill-first"; }

// The most draft tokens a speculative step verifies (ServerConfig::draft_tokens): TensorRT-LLM
// and SGLang run MTP with 1 to 3, EAGLE trees a few more.
inline constexpr std::uint32_t max_draft_tokens = 16;

struct ServerConfig {
  std::uint32_t max_batch_tokens = 8192;  // new tokens (decodes + prefill chunk rows) per iteration
  std::uint32_t max_seqs = 256;           // running requests at most (a CUDA-graph / scheduler limit)
  std::uint32_t kv_block = 16;            // KV page size in tokens; reservations round up to it
  double reserve_fraction = 0.10;         // of HBM: activations, workspace, fragmentation
  Batching batching = Batching::mixed;
  // false: a prompt joins an iteration only whole (what is left of it fits the budget
  // beside the decodes), so a prompt longer than the budget cannot be served.
  bool chunked_prefill = true;
  // The server's front end (HTTP, tokenization) takes requests one at a time, frontend_s
  // each, before the engine sees them; requests sent together reach it frontend_s apart.
  // Its size barely matters (the silicon sample's medians are the same at 1 and 3 ms);
  // that an engine sees simultaneous requests one by one does: an idle engine starts on
  // the first at once instead of waiting to batch them all.
  double frontend_s = 0;
  // An aggregated worker returns a request's first token with the iteration after its
  // prefill's, not with the prefill's own (TensorRT-LLM's overlap scheduler: iteration
  // n + 1 is launched before n's outputs are handled).
  bool lagged_first_token = false;
  // The engine schedules ahead: the batch of iteration n + 1 is formed when iteration n is
  // launched (vLLM's async scheduling, SGLang's overlap schedule, TensorRT-LLM's overlap
  // scheduler), so a request that reaches a busy engine runs first in the iteration after
  // the next; an idle engine takes it at once.
  bool overlap_scheduling = false;
  // Batch waiting (TensorRT-LLM's batch_wait_timeout_iters and batch_wait_max_tokens_ratio,
  // off by default): an iteration with decodes running and prompts ready holds the prompts
  // back, running the decodes alone, until it has held them batch_wait_iters iterations in
  // a row or its new tokens (decodes + prompt rows) reach batch_wait_tokens_ratio ×
  // max_batch_tokens; then they run and the count starts again. Fewer, fuller prefill
  // iterations for more TTFT. tensorrt_llm/_torch/pyexecutor/py_executor.py
  // (_waiting_requests: stop when the count reaches the timeout or the tokens the ratio,
  // only with context and generation requests both scheduled and no attention DP).
  std::uint32_t batch_wait_iters = 0;
  double batch_wait_tokens_ratio = 0;
  // Streaming in chunks of stream_interval tokens, SGLang's way: a request's output goes
  // out when its token count is a multiple of the interval (or it ends), so its first
  // token reaches the client with its stream_interval-th
  // (python/sglang/srt/managers/scheduler_output_processor_mixin.py, stream_output:
  // `len(req.output_ids) % self.stream_interval == 0`; 1, every token, by default). An
  // aggregated or decode worker's TTFT counts to that token (the prefill worker's first
  // token is the decode worker's first of output_ids). TensorRT-LLM streams a request's first
  // token whatever its interval, so the two are not combined with lagged_first_token.
  std::uint32_t stream_interval = 1;
  // Requests received in batches: SGLang's --scheduler-recv-interval N (1, off, by
  // default) makes a busy scheduler pick up new requests once its weighted loop count
  // reaches N: a decode iteration counts 1, an iteration with prompt rows N (it receives
  // right after one); an idle engine receives at once
  // (python/sglang/srt/managers/scheduler_recv_skipper.py, SchedulerRecvSkipper).
  std::uint32_t recv_interval = 1;
  // Batch sizes with a captured CUDA graph, ascending: a decode-only iteration of b
  // requests runs the smallest captured size >= b, the extra rows as dummy requests
  // (KV length 1); above the largest, or empty (no padding), it runs as it is.
  std::vector<std::uint32_t> cuda_graph_batches{};
  // An iteration with prompt rows runs eagerly (no CUDA graph) above graph_prefill_tokens new
  // tokens, and then the host launches its kernels one by one, eager_launch_s each (the
  // framework's Python, dispatch and the launch): where that outlasts the GPU's work the
  // GPU waits, and the iteration takes launches × eager_launch_s (the model's launches(),
  // serve/iteration_model.hpp). Decode-only iterations replay their captured graphs.
  // 0 s: the host keeps ahead of the GPU.
  double eager_launch_s = 0;
  std::uint32_t graph_prefill_tokens = 0;
  // What a request's fixed state (linear-attention layers' recurrent state, whatever its
  // length) takes of the KV pool, in KV tokens' worth of its bytes: part of its footprint, as
  // vLLM's hybrid allocator gives each running request a state block from the one pool.
  // 0 for a KV cache alone (WorkerOption::state_tokens, KvBudget::state_tokens).
  std::uint64_t state_tokens = 0;
  // Speculative decoding with draft_tokens draft tokens a step (DeepSeek's multi-token
  // prediction, MTP: TensorRT-LLM's speculative_config num_nextn_predict_layers; 0, off).
  // A decode step verifies each request's 1 + draft_tokens tokens in one forward pass, as
  // many rows of the iteration (of its token budget too), and runs the draft module once
  // per draft token; each request then advances by 1 + the accepted drafts. Modelled as
  // aiconfigurator does (src/aiconfigurator/sdk/models/deepseek.py, commit 12553652a): the
  // step is the model's iteration with every decode's row repeated 1 + draft_tokens times,
  // times (layers + draft_tokens) / layers for the draft layers, and each decode yields
  // 1 + accepted_drafts() tokens a step on average (whole tokens, the fraction carried over
  // from step to step).
  std::uint32_t draft_tokens = 0;
  // The chance that draft token i is accepted given drafts 0 .. i - 1 were; positions past
  // the list are rejected. aiconfigurator's default (src/aiconfigurator/cli/main.py, commit
  // 12553652a: nextn_accept_rates [0.85, 0.3, 0, 0, 0]).
  std::vector<double> draft_acceptance{0.85, 0.3};

  // Drafts accepted per step on average: Σ over i < draft_tokens of the product of the
  // first i + 1 acceptance rates (aiconfigurator's calc_expectation).
  double accepted_drafts() const noexcept { return expected_accepted(draft_tokens, draft_acceptance); }
  static double expected_accepted(std::uint32_t drafts, std::span<const double> acceptance) noexcept {
    double expected = 0, reached = 1;
    for (std::uint32_t i = 0; i < drafts && i < acceptance.size(); ++i) {
      reached *= acceptance[i];
      expected += reached;
    }
    return expected;
  }
};

}  // namespace costdsl::serve
