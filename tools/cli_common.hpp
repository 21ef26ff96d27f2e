#pragma once
// Shared pieces of the costdsl CLI: options every command takes and output helpers.
#include <cmath>
#include <cstdint>
#include <exception>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "fields_json.hpp"
#include "family.hpp"
#include "costdsl/coverage.hpp"
#include "costdsl/kernels/all.hpp"
#include "costdsl/load_timing.hpp"
#include "costdsl/metrics.hpp"
#include "costdsl/reflect.hpp"
#include "costdsl/serve/framework.hpp"
#include "costdsl/serve/plan_spec.hpp"
#include "model.hpp"

namespace costdsl::cli {

// Rejects a negative number before CLI11 converts it (an unsigned parse would wrap).
inline const CLI::Validator non_negative(
    [](std::string& s) -> std::string {
      const auto first = s.find_first_not_of(" \t");
      if (first != std::string::npos && s[first] == '-') return "must be a non-negative integer, got " + s;
      return {};
    },
    "UINT", "non_negative");

// At least 1 (degrees, batch sizes, KV lengths). CLI::PositiveNumber's own message
// ("Value 0 not in range 0.000000 to 1797...") states neither the rule nor the bound.
inline const CLI::Validator positive(
    [](std::string& s) -> std::string {
      const auto first = s.find_first_not_of(" \t");
      if (first != std::string::npos && s[first] == '-') return "must be a positive integer, got " + s;
      const auto last = s.find_last_not_of(" \t");
      if (first != std::string::npos && s.substr(first, last - first + 1).find_first_not_of('0') == std::string::npos)
        return "must be a positive integer (at least 1), got " + s;
      return {};
    },
    "UINT>0", "positive");

// A finite number >= 0 (a real-valued knob such as --routing-skew).
inline const CLI::Validator non_negative_number(
    [](std::string& s) -> std::string {
      double v = 0;
      try {
        std::size_t pos = 0;
        v = std::stod(s, &pos);
        if (pos != s.size()) return "must be a finite number >= 0, got " + s;
      } catch (const std::exception&) {
        return "must be a finite number >= 0, got " + s;
      }
      if (!(v >= 0) || !std::isfinite(v)) return "must be a finite number >= 0, got " + s;
      return {};
    },
    "NUMBER>=0", "non_negative_number");

// A positive, finite real (an SLA in ms, a rate in requests/s).
inline const CLI::Validator positive_number(
    [](std::string& s) -> std::string {
      double v = 0;
      std::size_t pos = 0;
      try {
        v = std::stod(s, &pos);
      } catch (const std::exception&) {
        pos = 0;
      }
      if (pos != s.size() || !(v > 0) || !std::isfinite(v)) return "must be a positive finite number, got " + s;
      return {};
    },
    "NUMBER>0", "positive_number");

// --client-start, for the commands that run closed loops of clients (plan, validate
// --deployments): the names are PlanSpec::name's.
inline CLI::Option* add_client_start_option(CLI::App& cmd, serve::PlanSpec::ClientStart& v) {
  using CS = serve::PlanSpec::ClientStart;
  return cmd
      .add_option_function<std::string>(
          "--client-start", [&v](const std::string& s) { v = s == serve::PlanSpec::name(CS::together) ? CS::together : CS::staggered; },
          "closed loops: `together`, every client's first request at once, as serving benchmarks send them; "
          "`staggered`, spread over one request's latency, like independent users")
      ->check(CLI::IsMember({serve::PlanSpec::name(CS::together), serve::PlanSpec::name(CS::staggered)}))
      ->default_str(serve::PlanSpec::name(v));
}

// --warmup and --rounds, for the commands that run closed loops: what the measured requests
// follow (PlanSpec::Warmup) and how many requests per client are measured.
struct ClosedLoopOptions {
  CLI::Option* warmup = nullptr;
  CLI::Option* rounds = nullptr;
};
inline ClosedLoopOptions add_closed_loop_options(CLI::App& cmd, serve::PlanSpec::Warmup& warmup,
                                                 std::uint32_t& rounds) {
  using W = serve::PlanSpec::Warmup;
  ClosedLoopOptions o;
  o.warmup = cmd.add_option_function<std::string>(
                    "--warmup",
                    [&warmup](const std::string& s) {
                      warmup = s == serve::PlanSpec::name(W::drained) ? W::drained : W::first_round;
                    },
                    "closed loops: `drained`, the warm-up ends before the measured requests start, all clients "
                    "at once on an idle engine (aiperf's phases, as benchmarks run); `first-round`, each "
                    "client's first request is dropped and the loop goes on (a steady state)")
                 ->check(CLI::IsMember({serve::PlanSpec::name(W::first_round), serve::PlanSpec::name(W::drained)}))
                 ->default_str(serve::PlanSpec::name(warmup));
  o.rounds = cmd.add_option("--rounds", rounds,
                            "closed loops: requests measured per client (at least 16 in all), as a benchmark's "
                            "request count over its concurrency")
                 ->check(CLI::Range(1u, 10000u))
                 ->capture_default_str();
  return o;
}

// --min-length-ratio: requests of drawn lengths (serve::Load::min_length_ratio).
inline CLI::Option* add_length_ratio_option(CLI::App& cmd, double& ratio) {
  return cmd
      .add_option("--min-length-ratio", ratio,
                  "below 1, each request's input and output lengths are drawn uniformly from ratio × ISL .. ISL "
                  "and ratio × OSL .. OSL (InferenceX's benchmark_serving.py --random-range-ratio, which it runs "
                  "at 0.8; vLLM's own `bench serve` spreads ±ratio instead); 1: every request has the given lengths")
      ->check(CLI::Range(0.0, 1.0))
      ->capture_default_str();
}

// --framework and the scheduler knobs it sets, each a flag of its own that overrides the
// framework's default (serve/framework.hpp names where every default comes from).
struct EngineOptions {
  std::string framework = "ideal";
  std::string batching, chunked_prefill, lagged_first_token, overlap_scheduling,
      cuda_graph_padding;  // empty: the framework's
  std::optional<double> frontend_ms, reserve_fraction, batch_wait_ratio, eager_launch_us;
  std::optional<std::uint32_t> kv_block, batch_wait_iters, stream_interval, recv_interval, graph_prefill_tokens,
      draft_tokens;
  std::vector<double> draft_acceptance;  // empty: the default (ServerConfig)
  static constexpr const char* flags[] = {"--framework",        "--batching",           "--chunked-prefill",
                                          "--frontend-ms",      "--lagged-first-token", "--overlap-scheduling",
                                          "--kv-block",         "--reserve-fraction",   "--cuda-graph-padding",
                                          "--batch-wait-iters", "--batch-wait-ratio",   "--stream-interval",
                                          "--recv-interval",    "--eager-launch-us",    "--graph-prefill-tokens",
                                          "--draft-tokens",     "--draft-acceptance"};

  void add(CLI::App& cmd) {
    cmd.add_option("--framework", framework,
                   "serving framework whose scheduler defaults to simulate: trtllm, vllm, sglang, or ideal "
                   "(costdsl's engine: mixed batches, chunked prefill, no front end)")
        ->check(CLI::IsMember({"ideal", "trtllm", "vllm", "sglang"}))
        ->capture_default_str();
    cmd.add_option("--batching", batching,
                   "mixed (decodes and prompt chunks share iterations) or prefill-first (an iteration with a prompt "
                   "pending runs prefill only); default: the framework's")
        ->check(CLI::IsMember({"mixed", "prefill-first"}));
    cmd.add_option("--chunked-prefill", chunked_prefill,
                   "on: prompts split to fill each iteration's token budget; off: whole prompts only; default: the "
                   "framework's")
        ->check(CLI::IsMember({"on", "off"}));
    cmd.add_option("--frontend-ms", frontend_ms,
                   "front-end time per request (requests reach the engine one at a time); default: the framework's")
        ->check(non_negative_number);
    cmd.add_option("--lagged-first-token", lagged_first_token,
                   "on: a request's first token comes out with the iteration after its prefill (an overlap "
                   "scheduler); default: the framework's")
        ->check(CLI::IsMember({"on", "off"}));
    cmd.add_option("--overlap-scheduling", overlap_scheduling,
                   "on: the next iteration's batch is formed as the running one launches, so a request reaching a "
                   "busy engine runs from the iteration after the next (vLLM's async scheduling, SGLang's and "
                   "TensorRT-LLM's overlap schedulers); default: the framework's")
        ->check(CLI::IsMember({"on", "off"}));
    cmd.add_option("--cuda-graph-padding", cuda_graph_padding,
                   "off: decode batches run at their own size instead of the framework's next captured CUDA-graph "
                   "size (vllm, sglang pad; trtllm and ideal do not)")
        ->check(CLI::IsMember({"off"}));
    cmd.add_option("--kv-block", kv_block, "KV cache page size in tokens; default: the framework's")->check(positive);
    cmd.add_option("--reserve-fraction", reserve_fraction,
                   "share of each GPU's memory kept from weights and KV (activations, workspace); default: the "
                   "framework's")
        ->check(CLI::Range(0.0, 0.99));
    cmd.add_option("--batch-wait-iters", batch_wait_iters,
                   "batch waiting: an iteration with decodes holds ready prompts back, at most this many iterations "
                   "in a row, until its tokens reach --batch-wait-ratio of the budget (TensorRT-LLM's "
                   "batch_wait_timeout_iters); default: the framework's (0, off)");
    cmd.add_option("--batch-wait-ratio", batch_wait_ratio,
                   "batch waiting: the share of the token budget at which held prompts run at once "
                   "(TensorRT-LLM's batch_wait_max_tokens_ratio); default: the framework's (0)")
        ->check(CLI::Range(0.0, 1.0));
    cmd.add_option("--stream-interval", stream_interval,
                   "tokens per streamed chunk, SGLang's --stream-interval: a first token reaches the client with the "
                   "N-th token (aggregated and decode workers); default: the framework's (1)")
        ->check(positive);
    cmd.add_option("--recv-interval", recv_interval,
                   "a busy scheduler receives new requests once every N decode loops (a loop with prompt rows counts "
                   "N), SGLang's --scheduler-recv-interval; default: the framework's (1, every loop)")
        ->check(positive);
    cmd.add_option("--eager-launch-us", eager_launch_us,
                   "host time per kernel launch of an iteration that runs without a CUDA graph (prompt rows above "
                   "--graph-prefill-tokens): the iteration takes at least the model's launches times it; default: "
                   "the framework's (trtllm and vllm 55, sglang 0)")
        ->check(CLI::Range(0.0, 1e6));
    cmd.add_option("--draft-tokens", draft_tokens,
                   "speculative decoding (multi-token prediction): draft tokens each decode step verifies, as "
                   "TensorRT-LLM's num_nextn_predict_layers; a step costs the model's iteration with each decode's "
                   "row repeated 1 + N times and N draft layers, and yields 1 + the accepted drafts; default: the "
                   "framework's (0, off)")
        ->check(CLI::Range(0u, serve::max_draft_tokens));
    cmd.add_option("--draft-acceptance", draft_acceptance,
                   "--draft-tokens: each draft token's chance of acceptance given the ones before it were accepted, "
                   "comma-separated; positions past the list are rejected; default 0.85,0.3 (aiconfigurator's)")
        ->delimiter(',')
        ->check(CLI::Range(0.0, 1.0));
    cmd.add_option("--graph-prefill-tokens", graph_prefill_tokens,
                   "iterations with prompt rows replay a captured (piecewise) CUDA graph up to this many new tokens "
                   "and run eagerly above it; default: the framework's (vllm 512, trtllm and sglang 0)");
  }

  serve::Framework which() const { return *serve::parse_framework(framework); }

  // Framework f's defaults on `gpu`, with the flags given laid over them.
  // `launch`: how a deployment was launched (validate's recipes), between the two.
  serve::FrameworkDefaults resolve(serve::Framework f, const GpuSpec& gpu,
                                   const std::function<void(serve::ServerConfig&)>& launch = {}) const {
    serve::FrameworkDefaults d = serve::framework_defaults(f, gpu);
    if (launch) launch(d.server);
    using serve::Batching;
    if (!batching.empty()) d.server.batching = batching == "mixed" ? Batching::mixed : Batching::prefill_first;
    if (!chunked_prefill.empty()) d.server.chunked_prefill = chunked_prefill == "on";
    if (frontend_ms) d.server.frontend_s = *frontend_ms * 1e-3;
    if (!lagged_first_token.empty()) d.server.lagged_first_token = lagged_first_token == "on";
    if (!overlap_scheduling.empty()) d.server.overlap_scheduling = overlap_scheduling == "on";
    if (cuda_graph_padding == "off") d.server.cuda_graph_batches.clear();
    if (kv_block) d.server.kv_block = *kv_block;
    if (reserve_fraction) d.server.reserve_fraction = *reserve_fraction;
    if (batch_wait_iters) d.server.batch_wait_iters = *batch_wait_iters;
    if (batch_wait_ratio) d.server.batch_wait_tokens_ratio = *batch_wait_ratio;
    if (stream_interval) d.server.stream_interval = *stream_interval;
    if (recv_interval) d.server.recv_interval = *recv_interval;
    if (eager_launch_us) d.server.eager_launch_s = *eager_launch_us * 1e-6;
    if (graph_prefill_tokens) d.server.graph_prefill_tokens = *graph_prefill_tokens;
    if (draft_tokens) d.server.draft_tokens = *draft_tokens;
    if (!draft_acceptance.empty()) d.server.draft_acceptance = draft_acceptance;
    return d;
  }
  serve::FrameworkDefaults resolve(const GpuSpec& gpu) const { return resolve(which(), gpu); }

  // Sets spec's engine from d (the token budget is the caller's to use).
  static void apply(serve::PlanSpec& spec, const serve::FrameworkDefaults& d) { spec.engine = d.server; }
  serve::FrameworkDefaults apply(serve::PlanSpec& spec, const GpuSpec& gpu) const {
    const serve::FrameworkDefaults d = resolve(gpu);
    apply(spec, d);
    return d;
  }
};

// --gpu, --timing, --profile-dir: how a command times its leaves.
struct TimingOptions {
  std::string gpu;
  std::string timing = "auto";
  std::string profile_dir;
  std::string kernel_framework;  // empty: not given (the command's --framework, else any)
  std::vector<std::string> roofline_kinds;

  void add(CLI::App& cmd, bool gpu_required = true) {
    auto* g = cmd.add_option("--gpu", gpu, "GPU name or alias (see `costdsl gpus`)");
    if (gpu_required) g->required();
    cmd.add_option("--timing", timing, "auto (measured where covered, else roofline) | profile | roofline")
        ->check(CLI::IsMember({"auto", "profile", "roofline"}))
        ->capture_default_str();
    cmd.add_option("--profile-dir", profile_dir,
                   "read measured tables from DIR/<gpu>/<kind>.csv instead of the shipped data/profiles")
        ->check(CLI::ExistingDirectory);
    cmd.add_option("--kernel-framework", kernel_framework,
                   "whose measured kernels the leaves take where that framework's table holds the config: sglang, "
                   "trtllm, vllm, or any (the fastest measured); default: --framework's where the command has one, "
                   "else any (the shipped tables are SGLang's)")
        ->check(CLI::IsMember({"sglang", "trtllm", "vllm", "any"}));
    std::vector<std::string> kinds;
    boost::mp11::mp_for_each<kernels::All>([&](auto k) { kinds.emplace_back(decltype(k)::kind); });
    cmd.add_option("--roofline-kind", roofline_kinds,
                   "a kernel kind whose leaves take the roofline though a table holds their config: the deployment "
                   "runs a kernel no table measures (e.g. fused_moe under DeepGEMM experts); repeatable")
        ->check(CLI::IsMember(kinds))
        ->type_name("KIND");
  }

  // `framework`: the command's serving framework (--framework), whose kernels the leaves
  // prefer unless --kernel-framework says otherwise.
  Timing make(std::string_view framework = {}) const {
    std::optional<std::filesystem::path> dir;
    if (!profile_dir.empty()) dir = profile_dir;
    return load_timing(gpu, parse_timing_mode(timing), dir)
        .with_kernel_framework(kernels_of(framework))
        .with_roofline_kinds(roofline_kinds);
  }
  std::string kernels_of(std::string_view framework) const {
    if (kernel_framework == "any") return {};
    if (!kernel_framework.empty()) return kernel_framework;
    return Timing::is_kernel_framework(framework) ? std::string(framework) : std::string();
  }
};

// Which model, and how it is quantized: every command that builds a model takes these.
inline void add_model_source_options(CLI::App& cmd, ModelOptions& o) {
  cmd.add_option("--arch", o.arch, "a shipped arch (see `costdsl archs`)");
  cmd.add_option("--model-config", o.model_config, "a HuggingFace config.json to evaluate instead of --arch")
      ->check(CLI::ExistingFile);
  cmd.add_option("--family", o.family, "the family of --model-config (default: from its architectures)")
      ->check(CLI::IsMember(family_names()));
  cmd.add_option_function<std::string>(
         "--quant",
         [&o](const std::string& s) {
           const Quantization::Choice c = parse_quant_flag(s);
           if (c.gemm_dtype) o.quantization.gemm_dtype = c.gemm_dtype;
           if (c.expert_dtype) {
             o.quantization.expert_dtype = c.expert_dtype;
             o.quantization.expert_fp8_activations = c.expert_fp8_activations;
           }
         },
         "weight format of the dense/attention GEMMs and the experts, in place of the checkpoint's "
         "quantization_config: bf16, fp8 (per tensor), fp8_block (128x128 scales), nvfp4, mxfp4; or "
         "gemm=MODE,moe=MODE (moe=int4: W4A16 int4 experts, as Kimi-K2.5 ships them; moe=mxfp4_mxfp8: "
         "mxfp4 experts under MXFP8 activations, W4A8)")
      ->type_name("MODE");
  cmd.add_option_function<std::string>(
         "--kv-dtype", [&o](const std::string& s) { o.quantization.kv_dtype = parse_kv_dtype(s); },
         "the KV cache's dtype, in place of the checkpoint's (bf16, fp16, fp8)")
      ->type_name("DTYPE");
  cmd.add_option_function<std::string>(
         "--fp8-from",
         [&o](const std::string& s) { o.quantization.fp8_producers = parse_fp8_producers(s); },
         "per-tensor fp8 GEMMs with static activation scales: the kernels that write their input already "
         "quantized, the quantize fused into them (norm: the RMSNorm before qkv and up/gate; attention: before "
         "o_proj; activation: SiLU*mul before down_proj), comma-separated, or none (the default: each GEMM "
         "quantizes its own input)")
      ->type_name("LIST");
}

// --routing-skew: every command that builds a MoE model (plan takes it without the layout
// options of add_model_options).
inline void add_routing_skew_option(CLI::App& cmd, double& routing_skew) {
  cmd.add_option("--routing-skew", routing_skew,
                 "MoE routing: power-law exponent of expert popularity costdsl deals the rows by (0: evenly, "
                 "the experts' tables those measured under the family's power law; above 0: balanced tables)")
      ->check(non_negative_number)
      ->capture_default_str();
}

inline void add_model_options(CLI::App& cmd, ModelOptions& o) {
  add_model_source_options(cmd, o);
  cmd.add_option("--tp", o.tp, "tensor-parallel degree (MoE archs: attention TP inside each DP group)")
      ->check(positive)
      ->capture_default_str();
  cmd.add_option("--hp", o.hp,
                 "KV-parallel degree (dense archs, decode only): every request's KV split over hp GPUs, attention "
                 "on hp × tp GPUs, the FFN TP over all of them")
      ->check(positive)
      ->capture_default_str();
  cmd.add_flag("--kv-replicate", o.kv_replicate,
               "dense archs: allow tp above the KV heads by copying each KV head to tp / num_kv_heads GPUs");
  cmd.add_flag("--hop-b", o.hop_b,
               "hp > 1: overlap each batch slice's HP all-to-all with the next slice's attention (Helix HOP-B)");
  cmd.add_option("--ep", o.ep, "expert-parallel degree = GPUs (MoE archs; default tp × dp)")->check(positive);
  cmd.add_option("--dp", o.dp, "DP attention groups (MoE archs; default ep / tp)")->check(positive);
  cmd.add_option("--moe-tp", o.moe_tp,
                 "MoE archs, one attention group (dp 1): split each expert's intermediate width N ways inside groups "
                 "of N of the ep GPUs, ep / N groups holding the experts (experts both tensor- and expert-parallel, "
                 "as moe_tp_size x moe_ep_size = tp)")
      ->check(positive)
      ->capture_default_str();
  add_routing_skew_option(cmd, o.routing_skew);
}

inline nlohmann::json coverage_json(Coverage c) { return coverage_names(c); }

inline std::string coverage_text(Coverage c) {
  const auto names = coverage_names(c);
  if (names.empty()) return "measured";
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

// A result with no work and no flags did nothing (an empty iteration, a zero-size call):
// "measured" would claim a measurement that was never looked up.
inline std::string coverage_text(const Metrics& m) {
  if (m.coverage == Coverage::none && m.time_s == 0 && m.flops == 0 && m.bytes == 0) return "nothing to do";
  return coverage_text(m.coverage);
}

// 1234567 -> "1.23 M" style, for work figures.
inline std::string si(double v, const char* unit) {
  static constexpr const char* prefixes[] = {"", "k", "M", "G", "T", "P", "E"};
  int i = 0;
  while (v >= 1000 && i < 6) {
    v /= 1000;
    ++i;
  }
  return fmt::format("{:.4g} {}{}", v, prefixes[i], unit);
}

// A kernel's Config or Input as "name=value name=value" (costdsl kernel, validate's rows).
template <class S>
std::string fields_text(const S& s) {
  std::string out;
  for_each_field(s, [&](std::string_view name, const auto& v) {
    out += fmt::format("{}{}={}", out.empty() ? "" : " ", name, field_text(v));
  });
  return out;
}

}  // namespace costdsl::cli
