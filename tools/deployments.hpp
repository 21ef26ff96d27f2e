#pragma once
// `costdsl validate --deployments FILE`: measured deployments (TTFT and TPOT of a real
// server under a benchmark's closed loop of clients, aiconfigurator's silicon_sample.csv
// schema, ../shared/calibration/README.md) against costdsl's simulation of the same
// deployment: the model from its config.json, the GPU, the worker's TP degree, the
// concurrency as the batch cap, the clients starting together as the benchmark's do.
// The weights are quantized as the row's gemm_quant_mode and moe_quant_mode say; the KV
// cache as Options::kv says (KvPolicy). A disaggregated row without its worker counts
// takes them from its harness (DisaggHarness). A row costdsl cannot express yet (a
// pipelined deployment, speculative decoding, a layout, GPU or family it does not know) is
// a counted skip with its reason, never a silent guess.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "aiconfigurator.hpp"  // aic::Skips, aic::detail::Cells
#include "cli_common.hpp"      // EngineOptions
#include "costdsl/detail/read_text_file.hpp"
#include "costdsl/error.hpp"
#include "costdsl/load_timing.hpp"
#include "costdsl/serve/model_source.hpp"
#include "costdsl/serve/plan_spec.hpp"
#include "costdsl/serve/unit_simulator.hpp"
#include "model.hpp"
#include "named_csv_rows.hpp"
#include "benchmark_recipe.hpp"
#include "family.hpp"

namespace costdsl::cli::deployments {

// One worker's layout as a row gives it: tp GPUs of attention TP in each of dp attention
// groups (attention_dp_size), its experts over moe_tp × moe_ep = tp × dp GPUs, each
// group running up to `batch` requests; moe_kernel: the experts' kernel its recipe names
// (DisaggHarness; empty: not recorded).
struct WorkerLayout {
  std::uint32_t tp = 1, dp = 1, moe_tp = 1, moe_ep = 1, batch = 0;
  std::string moe_kernel;
};

// Whether a role's recipe dispatches its experts through DeepEP (SGLang's
// moe-a2a-backend deepep): DeepEP's normal (prefill) or low-latency (decode) exchange with
// DeepGEMM's or CuteDSL's grouped GEMM, not the fused kernel the fused-MoE tables time
// over every gathered token. aiconfigurator measured that path on GB200 (wideep_context_moe,
// wideep_generation_moe): DeepSeek at EP 16-32, 8,192-16,384 tokens, 0.5-1.0 ms a layer
// where the fused table says 3.2-6.8 ms; at EP 32 and 256 tokens 0.08 against 0.17 ms.
inline bool dispatches_through_deepep(const WorkerLayout& w) { return w.moe_kernel == "deepep"; }

// Why a disaggregated row whose sweep entries ran speculative decoding without a depth in
// their recipe's name is skipped (the harness, resolving its unit or taking its recipe facts).
inline constexpr std::string_view mtp_depth_not_given =
    "InferenceX disaggregated sweep: the deployment ran speculative decoding (MTP) and its recipe's name does not "
    "give the depth (_mtpN)";

// One measured deployment. Aggregated: one worker (tp_size, attention_dp_size,
// moe_*_size, batch_size). Disaggregated: prefill_num_workers prefill and
// decode_num_workers decode workers, each with its prefill_* / decode_* layout. The
// clients: batch_size per attention group over the (decode) workers; a disaggregated
// row's silicon_concurrency (in silicon_data_source) where it records one. Aggregated rows
// keep batch_size × attention_dp_size, which is silicon_concurrency in 99% of them; the
// few that differ (ratios 2 to 64 on GB200 and B200) were measured at TTFTs no queue of
// silicon_concurrency clients allows.
struct Deployment {
  std::string id, backend, backend_version, model_path, system, where;
  // From silicon_data_source where it records them: the file the row came from and the
  // date it was measured (YYYY-MM-DD), which name the harness that launched it (Recipe).
  std::string source_file, measured, precision;
  std::string measured_at;  // the full measured= time (UTC, YYYY-MM-DDTHH:MM:SS...)
  bool disaggregated = false;
  // A disaggregated row without its worker counts (prefill_num_workers empty) keeps what
  // it records, each worker's GPUs as prefill.tp / worker.tp and the prefill's
  // prefill_moe_ep_size as prefill.moe_ep, until its harness completes it
  // (DisaggHarness::resolve, which sets unit_source to where the unit was read).
  bool unit_recorded = true;
  std::string unit_source;
  // A disaggregated unit's decode workers' stream interval where the harness read it from
  // their recipe (SGLang's --stream-interval); 0: the framework's.
  std::uint32_t decode_stream_interval = 0;
  // Its decode workers' speculative decoding (multi-token prediction) where the harness read
  // the depth from their recipe; 0: none.
  std::uint32_t decode_draft_tokens = 0;
  std::uint32_t token_budget = 0;  // the harness's prefill (or aggregated) max tokens; 0: the recipe's
  std::uint32_t isl = 0, osl = 0, clients = 0;
  WorkerLayout worker;   // aggregated: the worker; disaggregated: each decode worker
  WorkerLayout prefill;  // disaggregated: each prefill worker
  std::uint32_t prefill_workers = 0, decode_workers = 1;
  Quantization::Choice quantization;  // the weights' formats the row names (empty cell: the checkpoint's)
  bool int4_weight_only = false;      // int4_wo: the checkpoint's int4 experts
  double ttft_ms = 0, tpot_ms = 0;
};

struct Table {
  std::vector<Deployment> rows;
  std::size_t read = 0;  // data rows in the file
  aic::Skips skips;      // rows not simulated, by reason
};

namespace detail {
// A quant-mode cell as a weight format; empty: the checkpoint's own. why: a mode costdsl
// does not model.
// int4_wo: the checkpoint's own int4 weight-only format, which the simulation takes from
// its config.json (int4_weight_only set; checked there).
inline std::optional<Dtype> weight_format(const aic::detail::Cells& r, std::string_view col, std::string& why,
                                          bool& int4_weight_only) {
  if (!r.has(col) || r.text(col).empty()) return std::nullopt;
  const std::string_view mode = r.text(col);
  if (mode == "int4_wo") {
    int4_weight_only = true;
    return std::nullopt;
  }
  try {
    return parse_weight_format(mode, col);
  } catch (const InputError& e) {
    why = e.what();
    return std::nullopt;
  }
}

inline std::uint32_t small_count(const aic::detail::Cells& r, std::string_view col) {
  const std::uint64_t v = r.count(col);
  if (v == 0 || v > 1'000'000)
    throw DataError(fmt::format("{}: column '{}': {} must be in 1..1000000", r.where(col), col, v));
  return static_cast<std::uint32_t>(v);
}
// InferenceX's exports write a single-node run of X GPUs with its experts EP X (the sweep
// config's `{ tp: X, ep: X }`, `multinode: false`; the dated files' ids end `_tpX_epX`) with
// a GPU count multiplied by X: tp_size X² (under DP attention attention_dp_size X², tp_size
// 1) with moe_tp_size = moe_ep_size = X; and its vLLM rows (one engine, `--enable-expert-
// parallel` over its TP ranks, no data parallelism in the scripts) as tp_size X,
// attention_dp_size X, moe_ep_size X². batch_size is the clients over the DP count as
// written. Read as written these are workers of X² GPUs; they ran on X, experts EP X.
inline void undo_inferencex_multiple(WorkerLayout& w, std::uint32_t clients, std::string_view backend) {
  if (w.moe_tp > 1 && w.moe_tp == w.moe_ep && w.tp * w.dp == w.moe_tp * w.moe_ep && (w.tp == 1 || w.dp == 1)) {
    (w.dp == 1 ? w.tp : w.dp) = w.moe_ep;
    w.moe_tp = 1;
  } else if (backend == "vllm" && w.tp > 1 && w.dp == w.tp && w.moe_tp == 1 && w.moe_ep == w.tp * w.tp) {
    w.dp = 1;
    w.moe_ep = w.tp;
  } else {
    return;
  }
  w.batch = clients / w.dp;  // the clients stay
}

}  // namespace detail

// Reads the table; malformed cells are FILE:LINE:COL errors, rows costdsl cannot express
// are counted in skips.
inline Table read(const std::filesystem::path& path) {
  const std::string file = path.string();
  const std::string text = costdsl::detail::read_text_file(path, "deployments table");
  Table t;
  const std::vector<std::string_view> required{"id", "backend", "model_path", "system", "mode", "isl", "osl",
                                               "silicon_ttft_ms", "silicon_tpot_ms"};
  for_each_named_row(text, file, required, "a deployments table", [&](std::size_t, const aic::detail::Cells& r) {
    ++t.read;
    const std::string where = r.where();
    // A row cut short says why; a malformed cell is a FILE:LINE:COL error (detail::small_count).
    const auto skip = [&](std::string why) { t.skips.add(std::move(why), where); };
    const auto given = [&](std::string_view col) { return r.has(col) && !r.text(col).empty(); };
    // Dense rows leave the MoE and attention-DP columns empty or write 0: degree 1.
    const auto degree = [&](std::string_view col) -> std::uint32_t {
      return given(col) && r.count(col) > 0 ? detail::small_count(r, col) : 1;
    };
    Deployment d;
    const std::string mode(r.text("mode"));
    if (mode != "agg" && mode != "disagg") return skip(fmt::format("mode {}: not agg or disagg", mode));
    d.disaggregated = mode == "disagg";
    {
      std::string why;
      d.quantization.gemm_dtype = detail::weight_format(r, "gemm_quant_mode", why, d.int4_weight_only);
      if (why.empty()) d.quantization.expert_dtype = detail::weight_format(r, "moe_quant_mode", why, d.int4_weight_only);
      if (!why.empty()) return skip(why);
    }
    // One worker's columns under `prefix` (tp_size or prefill_tp_size, ...).
    const auto layout = [&](const std::string& prefix, WorkerLayout& w) -> std::string {
      for (const char* col : {"tp_size", "batch_size"})
        if (!given(prefix + col)) return fmt::format("{}{} empty: the worker's layout is not recorded", prefix, col);
      if (given(prefix + "pp_size") && r.count(prefix + "pp_size") > 1)
        return fmt::format("{}pp_size above 1: pipeline parallelism is not modelled", prefix);
      w.tp = detail::small_count(r, prefix + "tp_size");
      w.batch = detail::small_count(r, prefix + "batch_size");
      w.dp = degree(prefix + "attention_dp_size");
      w.moe_tp = degree(prefix + "moe_tp_size");
      w.moe_ep = degree(prefix + "moe_ep_size");
      return {};
    };
    if (!d.disaggregated) {
      if (const std::string why = layout("", d.worker); !why.empty()) return skip(why);
      d.clients = d.worker.batch * d.worker.dp;
    } else if (!given("prefill_num_workers") && !given("decode_num_workers") && given("prefill_tp_size") &&
               given("decode_tp_size")) {
      d.unit_recorded = false;  // what the row records, for its harness to complete
      d.prefill.tp = detail::small_count(r, "prefill_tp_size");
      d.prefill.moe_ep = degree("prefill_moe_ep_size");
      d.worker.tp = detail::small_count(r, "decode_tp_size");
    } else {
      for (const char* col : {"prefill_num_workers", "decode_num_workers"})
        if (!given(col)) return skip(fmt::format("{} empty: the disaggregated unit is not recorded", col));
      if (const std::string why = layout("prefill_", d.prefill); !why.empty()) return skip(why);
      if (const std::string why = layout("decode_", d.worker); !why.empty()) return skip(why);
      d.prefill_workers = detail::small_count(r, "prefill_num_workers");
      d.decode_workers = detail::small_count(r, "decode_num_workers");
      d.clients = d.worker.batch * d.worker.dp * d.decode_workers;
    }
    // The benchmark's own concurrency, where the provenance records it, and where the row
    // came from: "key=value" fields separated by "; ".
    if (r.has("silicon_data_source")) {
      const std::string_view src = r.text("silicon_data_source");
      const auto field = [&](std::string_view key) -> std::string {
        for (std::size_t at = src.find(key); at != std::string_view::npos; at = src.find(key, at + 1)) {
          if (at > 0 && src[at - 1] != ' ' && src[at - 1] != ';') continue;  // the tail of another key
          const std::size_t from = at + key.size();
          return std::string(src.substr(from, src.find(';', from) - from));  // npos: to the end
        }
        return {};
      };
      d.source_file = src.starts_with("db-dump/") ? std::string("db-dump") : field("source_file=");
      d.measured_at = field("measured=");
      d.measured = d.measured_at.substr(0, 10);
      if (d.disaggregated) {  // its leading digits
        std::uint64_t c = 0;
        for (const char ch : field("silicon_concurrency=")) {
          if (ch < '0' || ch > '9' || c >= 10'000'000) break;
          c = c * 10 + static_cast<std::uint64_t>(ch - '0');
        }
        if (c > 0 && c < 10'000'000) d.clients = static_cast<std::uint32_t>(c);
      }
    }
    if (inferencex_export(d.source_file) && !d.disaggregated)
      detail::undo_inferencex_multiple(d.worker, d.clients, r.text("backend"));
    d.id = r.text("id");
    d.precision = r.text_or("precision", "");
    d.backend = r.text("backend");
    d.backend_version = r.text_or("backend_version", "");
    d.model_path = r.text("model_path");
    d.system = r.text("system");
    d.where = where;
    d.isl = detail::small_count(r, "isl");
    d.osl = detail::small_count(r, "osl");
    if (d.osl < 2) return skip("osl below 2: no TPOT");
    std::string why;
    const auto ttft = r.time("silicon_ttft_ms", why), tpot = r.time("silicon_tpot_ms", why);
    if (!ttft || !tpot) return skip(why);
    d.ttft_ms = *ttft;
    d.tpot_ms = *tpot;
    t.rows.push_back(std::move(d));
  });
  return t;
}

// A model's config.json in the silicon layout: "org/name" → DIR/org--name_config.json; where
// that file is missing and exactly one other organisation publishes the name
// (DIR/*--name_config.json: an organisation renamed, as zhipuai/GLM-5 is zai-org/GLM-5 on the
// Hub), that one; failing both, a quantized checkpoint's base model (NVIDIA publishes
// "org/name-NVFP4" and "-FP8" repacks of a model under its own organisation: the
// architecture is the base's, nvidia/Qwen3-32B-NVFP4 reads Qwen--Qwen3-32B). The row's
// weights stay its own (gemm_quant_mode, moe_quant_mode).
inline std::filesystem::path config_path(const std::filesystem::path& dir, std::string_view model_path) {
  std::string name(model_path);
  for (std::size_t i = name.find('/'); i != std::string::npos; i = name.find('/', i + 2)) name.replace(i, 1, "--");
  const std::filesystem::path own = dir / (name + "_config.json");
  const std::size_t slash = model_path.rfind('/');
  std::error_code ec;
  if (slash == std::string_view::npos || std::filesystem::exists(own, ec)) return own;
  // The one file DIR/*--model_config.json, if exactly one organisation has it.
  const auto by_name = [&](std::string_view model) -> std::optional<std::filesystem::path> {
    const std::string tail = "--" + std::string(model) + "_config.json";
    std::vector<std::filesystem::path> found;
    for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
      const std::string f = e.path().filename().string();
      if (f.size() > tail.size() && f.ends_with(tail) && f.find("--") == f.size() - tail.size()) found.push_back(e.path());
    }
    if (found.size() == 1) return found.front();
    return std::nullopt;
  };
  const std::string_view model = model_path.substr(slash + 1);
  if (auto p = by_name(model)) return *p;
  for (const std::string_view suffix : {"-NVFP4", "-FP8"})
    if (model.size() > suffix.size() && model.ends_with(suffix))
      if (auto p = by_name(model.substr(0, model.size() - suffix.size()))) return *p;
  return own;
}

// The KV cache's dtype, which the table does not record. modelopt: fp8 where the row's
// dense GEMMs are fp8 or nvfp4, the formats of NVIDIA's ModelOpt checkpoints, which
// quantize the KV cache too (kv_cache_quant_algo FP8, e.g. nvidia/Llama-3.1-70B-Instruct-FP8,
// whose hf_quant_config.json ships beside the sample); else the checkpoint's. The sample
// bears it out: Llama-3.1-70B fp8 on one B200 at 64 clients of 1024 + 8192 tokens was
// measured at a 0.35 s TTFT, which needs all 64 requests' KV resident, and that fits in
// the GPU's memory beside the weights only at one byte per element. checkpoint: the
// config's own (bf16 unless it names fp8; what aiconfigurator's estimates assume).
enum class KvPolicy : std::uint8_t { modelopt, checkpoint, bf16, fp8 };

struct Options {
  std::filesystem::path model_configs;  // where the config.json files are
  // model_path → its config.json, for models whose file is not DIR/org--name_config.json
  // (e.g. an instruction-tuned checkpoint measured with its base model's config).
  std::map<std::string, std::filesystem::path, std::less<>> config_for;
  // The engine: each row's backend's defaults (serve/framework.hpp; a backend costdsl does
  // not know runs `ideal`), or --framework's for every row, with the scheduler flags laid
  // over them.
  EngineOptions engine;
  bool framework_given = false;
  // Tokens per iteration, which the table does not record: a fixed number, the
  // framework's default, or what aiconfigurator's benchmark generator sets (the sample's
  // deployments were launched by it): max_num_tokens / max_num_batched_tokens = batch cap
  // + ISL + 1500 on an aggregated worker and ISL + 1500 on a prefill worker, TensorRT-LLM's
  // rounded up to its KV block; SGLang's max_prefill_tokens = ISL + 1500 (its chunk size
  // stays the framework's). src/aiconfigurator/generator/rule_plugin/benchmark/
  // {trtllm,vllm,sglang}.rule at aiconfigurator commit 095f58a.
  enum class Budget : std::uint8_t { benchmark, framework, fixed };
  Budget budget = Budget::benchmark;
  std::uint32_t token_budget = 8192;  // Budget::fixed
  serve::PlanSpec::ClientStart client_start = serve::PlanSpec::ClientStart::together;
  // The benchmark's protocol and launch flags, which the table does not record either:
  // each row's harness's (Recipe: recipe_for its provenance), or with `recipes` off
  // aiconfigurator's generator's for every row. rounds and min_length_ratio, where given,
  // stand for every row.
  bool recipes = true;
  serve::PlanSpec::Warmup warmup = serve::PlanSpec::benchmark_warmup;
  std::optional<std::uint32_t> rounds;
  std::optional<double> min_length_ratio;  // --random-range-ratio
  // Which of the simulated requests' figures a row's TTFT and TPOT are compared with: the
  // mean (aiperf's headline `avg`, and what the sample follows: docs/accuracy.md) or p50.
  enum class Statistic : std::uint8_t { mean, p50 };
  Statistic statistic = Statistic::mean;
  KvPolicy kv = KvPolicy::modelopt;
  // Where kernel times come from (--timing, --profile-dir): roofline alone is what a GPU
  // without measured tables gets, the check of how the model transfers.
  TimingMode timing = TimingMode::automatic;
  std::optional<std::filesystem::path> profile_dir;
  // Whose measured kernels the leaves prefer (Timing::with_kernel_framework): unset, each
  // row's framework's (the simulated scheduler's, when it is sglang, trtllm or vllm);
  // empty, the fastest measured, whoever's.
  std::optional<std::string> kernel_framework;
  // Kinds whose leaves take the roofline (Timing::with_roofline_kinds): unset, each row's
  // recipe's (Recipe::roofline_kinds).
  std::optional<std::vector<std::string>> roofline_kinds;
};

// What a row's provenance says, as the recipes read it (benchmark_recipe.hpp).
inline Provenance provenance_of(const Deployment& d) {
  return {d.source_file, d.measured,  d.model_path, d.backend,
          d.system,      d.precision, d.isl,        d.osl,
          d.worker.tp,   d.clients,   !d.disaggregated, d.worker.tp * d.worker.dp,
          d.worker.moe_ep, d.backend_version};
}

struct Simulated {
  const Deployment* row = nullptr;
  double ttft_ms = 0, tpot_ms = 0;  // costdsl's means (or medians: Options::statistic) over the measured requests
  std::string quantization;         // as simulated (weights from the row, KV by the policy)
  serve::Framework framework{};     // the scheduler simulated
  std::string_view harness;         // whose launch flags and load (Recipe::harness)
  std::uint32_t token_budget = 0;   // of the (prefill or aggregated) worker, over its attention groups
  // Kinds timed by the roofline whatever the tables hold: the (decode or aggregated)
  // worker's and a disaggregated unit's prefill workers'.
  std::vector<std::string> roofline_kinds, prefill_roofline_kinds;
  double ttft_err() const { return ttft_ms / row->ttft_ms - 1; }
  double tpot_err() const { return tpot_ms / row->tpot_ms - 1; }
};

// Simulates every row the table could express; a row whose model, GPU or parallel layout
// costdsl rejects joins `skips` with the reason.
class Simulator {
 public:
  explicit Simulator(Options o) : o_(std::move(o)) {}

  // Rows are independent: `threads` simulators (each with its own timings and configs,
  // nothing shared but the table) take the rows in turn as each finishes one; results and
  // skips are gathered in row order, so the report does not depend on the thread count or
  // on which thread ran a row.
  // Rows that pin the same simulation (one run exported by two sources, as the silicon
  // sample's InferenceX files and database both hold it) are simulated once: the first of
  // them runs, the others take its figures (simulation_key names every input simulate
  // reads, and a simulation is a function of them).
  std::vector<Simulated> run(const Table& t, aic::Skips& skips, unsigned threads = 1) {
    const std::size_t n = t.rows.size();
    std::vector<std::size_t> same_as(n), distinct;
    {
      std::map<std::string, std::size_t> first;
      for (std::size_t i = 0; i < n; ++i) {
        const auto [it, fresh] = first.emplace(simulation_key(t.rows[i]), i);
        same_as[i] = it->second;
        if (fresh) distinct.push_back(i);
      }
    }
    threads = static_cast<unsigned>(std::clamp<std::size_t>(threads, 1, std::max<std::size_t>(distinct.size(), 1)));
    std::vector<std::optional<Simulated>> done(n);
    std::vector<std::string> whys(n);
    std::vector<std::exception_ptr> failed(threads);
    // Each thread takes the next row left: rows differ in cost by 10^4 (a disaggregated
    // DeepSeek unit of thousands of clients against one client of an 8B model), and every
    // threads-th row left one thread idle for a tenth of the run.
    std::atomic<std::size_t> next{0};
    const auto work = [&](Simulator& sim, unsigned k) {
      try {
        for (std::size_t j = next++; j < distinct.size(); j = next++) {
          const std::size_t i = distinct[j];
          done[i] = sim.simulate(t.rows[i], whys[i]);
        }
      } catch (...) {
        failed[k] = std::current_exception();
      }
    };
    {
      std::vector<std::unique_ptr<Simulator>> others;
      std::vector<std::jthread> pool;
      for (unsigned k = 1; k < threads; ++k) {
        others.push_back(std::make_unique<Simulator>(o_));
        pool.emplace_back(work, std::ref(*others.back()), k);
      }
      work(*this, 0);
    }  // the jthreads join here
    for (const std::exception_ptr& e : failed)
      if (e) std::rethrow_exception(e);
    for (std::size_t i = 0; i < n; ++i)
      if (const std::size_t f = same_as[i]; f != i) {
        whys[i] = whys[f];
        if ((done[i] = done[f])) done[i]->row = &t.rows[i];
      }
    std::vector<Simulated> out;
    for (std::size_t i = 0; i < n; ++i) {
      if (done[i]) out.push_back(*done[i]);
      else skips.add(whys[i], t.rows[i].where);
    }
    return out;
  }

 private:
  struct ModelEntry {
    std::optional<HfConfig> config;  // HfConfig has no empty state
    std::string family;
    bool expert_parallel = false;  // a MoE family: DP attention groups, EP experts
    std::string why;  // not empty: the model cannot be used, and why
  };

  // The model source of a model under one quantization on one Timing, opened once: the rows
  // that share it (the same deployment at other concurrencies, ISL or OSL) reuse its built
  // workers and their memo of iteration times, which are exact, so every row's figures are
  // what a fresh source gives.
  serve::ModelSource& source(const ModelEntry& m, const HfConfig& config, const Timing& t) {
    auto key = std::make_tuple(&m, config.quantization().text(), &t);
    auto it = sources_.find(key);
    if (it == sources_.end()) it = sources_.emplace(std::move(key), open_model_source(config, m.family, t)).first;
    return *it->second;
  }

  // A system's Timing, loaded once, and one copy per kernel framework and set of kinds on
  // the roofline (Recipe::roofline_kinds), sharing its tables.
  const Timing* timing(const std::string& system, const std::string& kernel_framework,
                       const std::vector<std::string>& roofline_kinds, std::string& why) {
    auto base = systems_.find(system);
    if (base == systems_.end()) {
      std::pair<std::unique_ptr<Timing>, std::string> loaded;
      try {
        loaded.first = std::make_unique<Timing>(load_timing(system, o_.timing, o_.profile_dir));
      } catch (const Error& e) {
        loaded.second = fmt::format("system {}: {}", system, e.what());
      }
      base = systems_.emplace(system, std::move(loaded)).first;
    }
    if (!base->second.first) {
      why = base->second.second;
      return nullptr;
    }
    const auto key = std::make_tuple(system, kernel_framework, roofline_kinds);
    auto it = timings_.find(key);
    if (it == timings_.end())
      it = timings_
               .emplace(key, std::make_unique<Timing>(base->second.first->with_kernel_framework(kernel_framework)
                                                          .with_roofline_kinds(roofline_kinds)))
               .first;
    return it->second.get();
  }

  // The model, or nullptr with the reason (the same reason for every row of that model).
  const ModelEntry* model(const std::string& model_path, std::string& why) {
    auto it = models_.find(model_path);
    if (it == models_.end()) {
      ModelEntry m;
      const auto given = o_.config_for.find(model_path);
      const std::filesystem::path file =
          given != o_.config_for.end() ? given->second : config_path(o_.model_configs, model_path);
      try {
        ModelOptions mo;
        mo.model_config = file.string();
        auto [hf, family] = mo.resolve();
        m.config.emplace(std::move(hf));
        m.family = std::move(family);
        m.expert_parallel = find_family(m.family).expert_parallel;
      } catch (const Error& e) {
        m.why = fmt::format("model {}: {}", model_path, e.what());
      }
      it = models_.emplace(model_path, std::move(m)).first;
    }
    why = it->second.why;
    return why.empty() ? &it->second : nullptr;
  }

  // The worker as costdsl's archs lay it out: a dense arch TP over its GPUs; a MoE arch
  // attention TP inside dp groups, the experts expert-parallel over all tp × dp GPUs; or
  // (moe_tp_size > 1, moe_ep_size 1) one attention group of tp GPUs whose every expert
  // is split tp ways: Parallel{tp, ep 1}, which the family builds with TP experts; or
  // split both ways (moe_tp_size > 1 and moe_ep_size > 1, one attention group):
  // Parallel{tp, ep tp, moe_tp}.
  static std::optional<serve::Parallel> parallel(const WorkerLayout& w, const ModelEntry& m, std::string_view role,
                                                 std::string& why) {
    serve::Parallel p{w.tp, 1, 1};
    if (m.expert_parallel && w.moe_tp > 1 && w.moe_ep == 1) {
      if (w.dp > 1)
        why = fmt::format("{0}attention_dp_size {1} with {0}moe_tp_size {2}: TP experts run in one attention group "
                          "(attention_dp_size 1)",
                          role, w.dp, w.moe_tp);
      else if (w.moe_tp != w.tp)
        why = fmt::format("{0}moe_tp_size {1} is not {0}tp_size {2}: TP experts are split over the attention group's "
                          "GPUs",
                          role, w.moe_tp, w.tp);
      else
        return p;
      return std::nullopt;
    }
    if (m.expert_parallel) {
      p.ep = w.tp * w.dp;
      if (w.moe_tp * w.moe_ep != p.ep) {
        why = fmt::format("{0}moe_tp_size {1} x {0}moe_ep_size {2} is not {0}tp_size {3} x {0}attention_dp_size {4}: "
                          "not one worker",
                          role, w.moe_tp, w.moe_ep, w.tp, w.dp);
        return std::nullopt;
      }
      if (w.moe_tp > 1 && w.dp > 1) {
        why = fmt::format("{0}moe_tp_size {1} x {0}moe_ep_size {2} with {0}attention_dp_size {3}: experts split both "
                          "ways are modelled over one attention group (attention_dp_size 1)",
                          role, w.moe_tp, w.moe_ep, w.dp);
        return std::nullopt;
      }
      p.moe_tp = w.moe_tp;
    } else if (w.dp > 1) {
      why = fmt::format("{}attention_dp_size {}: {} is dense (whole replicas are costdsl's data parallelism)", role,
                        w.dp, m.family);
      return std::nullopt;
    }
    return p;
  }

  Recipe recipe_of(const Deployment& d) const { return o_.recipes ? recipe_for(provenance_of(d)) : Recipe{}; }

  // Every input simulate() reads from a row, its recipe's launch flags and client included:
  // rows with equal keys simulate alike.
  std::string simulation_key(const Deployment& d) const {
    const auto dtype = [](const std::optional<Dtype>& t) { return t ? std::string(name(*t)) : std::string("-"); };
    const auto layout = [](const WorkerLayout& w) {
      return fmt::format("{}/{}/{}/{}/{}/{}", w.tp, w.dp, w.moe_tp, w.moe_ep, w.batch, w.moe_kernel);
    };
    const Recipe r = recipe_of(d);
    return fmt::format("{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}",
                       d.unit_recorded, d.model_path, d.system, d.backend, d.disaggregated, d.isl, d.osl, d.clients,
                       layout(d.worker), layout(d.prefill), d.prefill_workers, d.decode_workers, d.token_budget,
                       dtype(d.quantization.gemm_dtype), dtype(d.quantization.expert_dtype),
                       dtype(d.quantization.kv_dtype), d.int4_weight_only, r.harness, r.rounds, r.min_length_ratio,
                       r.token_budget, r.framework_budget, r.batch_wait_iters, r.batch_wait_tokens_ratio,
                       r.stream_interval, r.recv_interval, r.reserve_fraction, r.graph_prefill_tokens.value_or(0),
                       r.framework_graphs ? std::string("framework") : fmt::format("{}", fmt::join(r.cuda_graph_batches, ",")),
                       fmt::join(o_.roofline_kinds.value_or(r.roofline_kinds), ","), d.decode_stream_interval,
                       r.draft_tokens, d.decode_draft_tokens, r.expert_fp8_activations, dtype(r.kv_dtype));
  }

  // The deployment the row pins, simulated as each of plan's candidates is (serve::UnitSimulator).
  std::optional<Simulated> simulate(const Deployment& d, std::string& why) {
    if (!d.unit_recorded) {  // not completed by its harness (resolve_units)
      why = "prefill_num_workers empty: the disaggregated unit is not recorded";
      return std::nullopt;
    }
    if (d.decode_draft_tokens > serve::max_draft_tokens) {  // the harness's unknown depth, taken with recipe facts
      why = mtp_depth_not_given;
      return std::nullopt;
    }
    const serve::Framework framework =
        o_.framework_given ? o_.engine.which() : serve::parse_framework(d.backend).value_or(serve::Framework::ideal);
    const std::string kernels = o_.kernel_framework.value_or(
        Timing::is_kernel_framework(name(framework)) ? std::string(name(framework)) : std::string());
    const Recipe recipe = recipe_of(d);
    // Each role's kinds on the roofline: the command's, else its recipe's, with the experts
    // where the role dispatches through DeepEP.
    const auto roofline_kinds = [&](const WorkerLayout& w) {
      if (o_.roofline_kinds) return *o_.roofline_kinds;
      std::vector<std::string> kinds = recipe.roofline_kinds;
      if (dispatches_through_deepep(w) && std::find(kinds.begin(), kinds.end(), "fused_moe") == kinds.end())
        kinds.emplace_back("fused_moe");
      return kinds;
    };
    const Timing* t = timing(d.system, kernels, roofline_kinds(d.worker), why);
    const Timing* t_prefill = d.disaggregated && t ? timing(d.system, kernels, roofline_kinds(d.prefill), why) : t;
    const ModelEntry* m = t ? model(d.model_path, why) : nullptr;
    if (!m) return std::nullopt;
    const std::optional<serve::Parallel> worker = parallel(d.worker, *m, d.disaggregated ? "decode_" : "", why);
    if (!worker) return std::nullopt;
    std::optional<serve::Parallel> prefill;
    if (d.disaggregated && !(prefill = parallel(d.prefill, *m, "prefill_", why))) return std::nullopt;
    serve::PlanSpec spec;
    spec.gpus_per_node = static_cast<std::uint32_t>(std::max(t->gpu().gpus_per_node, 1));
    spec.input_tokens = d.isl;
    spec.output_tokens = d.osl;
    spec.load = serve::PlanSpec::LoadMode::concurrency;
    spec.concurrency = d.clients;
    spec.client_start = o_.client_start;
    spec.warmup = o_.warmup;
    spec.rounds = o_.rounds.value_or(recipe.rounds);
    spec.min_length_ratio = o_.min_length_ratio.value_or(recipe.min_length_ratio);
    // The framework's defaults, the recipe's launch flags over them, the command's flags over both.
    const serve::FrameworkDefaults engine =
        o_.engine.resolve(framework, t->gpu(), [&](serve::ServerConfig& s) {
          recipe.launch(s);
          // A prefill worker streams nothing: the interval is the decode workers' alone.
          if (d.disaggregated && d.decode_stream_interval > 0 && !s.lagged_first_token)
            s.stream_interval = d.decode_stream_interval;
          // Only decode workers decode: a prefill worker's steps have no draft rows to verify.
          if (d.disaggregated && d.decode_draft_tokens > 0) s.draft_tokens = d.decode_draft_tokens;
        });
    EngineOptions::apply(spec, engine);
    // A worker's budget per attention group; batch: its cap per group (0: a prefill worker).
    const auto budget = [&](std::uint32_t batch) -> std::uint32_t {
      switch (o_.budget) {
        case Options::Budget::fixed: return o_.token_budget;
        case Options::Budget::framework: return engine.server.max_batch_tokens;
        case Options::Budget::benchmark: break;
      }
      if (d.token_budget > 0) return d.token_budget;
      if (recipe.token_budget > 0) return recipe.token_budget;
      if (recipe.framework_budget) return engine.server.max_batch_tokens;
      const std::uint32_t rule = batch + d.isl + 1500;
      switch (framework) {
        case serve::Framework::sglang: return std::min(engine.server.max_batch_tokens, d.isl + 1500);
        case serve::Framework::trtllm: return (rule + 31) / 32 * 32;
        default: return rule;
      }
    };
    try {
      HfConfig config = *m->config;
      Quantization::Choice q = d.quantization;
      // A checkpoint published only with MXFP4 experts (gpt-oss) is what a 4-bit row ran:
      // the sample calls it nvfp4, but its attention stays bf16 and its experts MXFP4 (on
      // H100 weight-only), so the checkpoint's own quantization stands.
      const bool mxfp4_checkpoint = config.has("quantization_config.quant_method") &&
                                    config.text("quantization_config.quant_method") == "mxfp4";
      if (mxfp4_checkpoint && (q.gemm_dtype == Dtype::fp4 || q.expert_dtype == Dtype::fp4)) q = {};
      // A row's fp8 names the precision, not the scaling: a checkpoint published in fp8 with
      // 128x128 block scales (DeepSeek-R1, MiniMax-M2.5, GLM-5-FP8) is served as shipped,
      // block-scaled; no framework requantizes it per tensor on load.
      const bool block_fp8_checkpoint = config.has("quantization_config.quant_method") &&
                                        config.text("quantization_config.quant_method") == "fp8" &&
                                        config.has("quantization_config.weight_block_size");
      if (block_fp8_checkpoint && q.expert_dtype == Dtype::fp8) q.expert_dtype = Dtype::fp8_block;
      switch (o_.kv) {
        case KvPolicy::modelopt:  // the script's KV cache where its recipe says it
          if (recipe.kv_dtype) q.kv_dtype = recipe.kv_dtype;
          else if (q.gemm_dtype == Dtype::fp8 || q.gemm_dtype == Dtype::fp4) q.kv_dtype = Dtype::fp8;
          break;
        case KvPolicy::checkpoint: break;
        case KvPolicy::bf16: q.kv_dtype = Dtype::bf16; break;
        case KvPolicy::fp8: q.kv_dtype = Dtype::fp8; break;
      }
      // Per-tensor fp8 weights with static scales: the quantize its recipe's framework fused.
      if (recipe.fp8_producers && q.gemm_dtype.value_or(config.quantization().gemm_dtype) == Dtype::fp8)
        q.fp8_producers = recipe.fp8_producers;
      // mxfp4 experts the framework runs W4A8 (TensorRT-LLM's TRTLLM MoE on Blackwell).
      if (recipe.expert_fp8_activations && q.expert_dtype.value_or(config.quantization().expert_dtype) == Dtype::mxfp4) {
        q.expert_dtype = Dtype::mxfp4;
        q.expert_fp8_activations = true;
      }
      config.override_quantization(q);
      // int4_wo is only what a checkpoint ships: routed experts in W4A16 (Kimi-K2.5).
      if (d.int4_weight_only && config.quantization().expert_dtype != Dtype::int4) {
        why = fmt::format("int4_wo: {} does not ship int4 weight-only experts (compressed-tensors W4A16), the only "
                          "int4 costdsl models",
                          d.model_path);
        return std::nullopt;
      }
      serve::UnitSimulator units(source(*m, config, *t), *t, spec,
                                 t_prefill != t ? &source(*m, config, *t_prefill) : nullptr);
      // A worker the arch rejects, or whose KV cannot hold one request, is no deployment.
      const auto option = [&](serve::Parallel p, std::uint64_t need, std::string_view role) {
        std::string rejected;
        std::optional<serve::WorkerOption> o = units.option(p, &rejected);
        if (!o) why = fmt::format("{}{} at tp {} ep {}: {}", role, m->family, p.tp, p.ep, rejected);
        else if (o->kv_tokens_per_group < o->request_tokens(units.kv_round(need)))
          why = fmt::format("{}{} at tp {} ep {} on {}: no KV room for one request ({} tokens per attention group, "
                            "{} needed)",
                            role, m->family, p.tp, p.ep, t->gpu().name, o->kv_tokens_per_group,
                            o->request_tokens(units.kv_round(need)));
        else return o;
        return std::optional<serve::WorkerOption>{};
      };
      const std::optional<serve::WorkerOption> w =
          option(*worker, std::uint64_t{d.isl} + d.osl, d.disaggregated ? "decode " : "");
      if (!w) return std::nullopt;
      serve::Candidate c;
      c.replicas = 1;
      c.clients = d.clients;
      c.batch = d.worker.batch * d.worker.dp;
      std::optional<serve::WorkerOption> p;
      if (d.disaggregated) {
        if (!(p = option(*prefill, d.isl, "prefill "))) return std::nullopt;
        c.mode = serve::Mode::disaggregated;
        c.prefill_workers = d.prefill_workers;
        c.decode_workers = d.decode_workers;
        c.token_budget = budget(0) * p->f.kv_groups;
        c.prefill_batch = d.prefill.batch * d.prefill.dp;
      } else {
        c.token_budget = budget(d.worker.batch) * w->f.kv_groups;
      }
      spec.gpus = d.disaggregated ? c.prefill_workers * p->f.gpus + c.decode_workers * w->f.gpus : w->f.gpus;
      const serve::PlanRow r = units.run(c, *w, p ? &*p : nullptr);
      if (r.r.measured == 0) {
        why = fmt::format("{}: no request finished in the simulated run", m->family);
        return std::nullopt;
      }
      const bool mean = o_.statistic == Options::Statistic::mean;
      return Simulated{&d,
                       (mean ? r.r.ttft_s.mean : r.r.ttft_s.p50) * 1e3,
                       (mean ? r.r.tpot_s.mean : r.r.tpot_s.p50) * 1e3,
                       config.quantization().text(),
                       framework, recipe.harness, c.token_budget, t->roofline_kinds(),
                       t_prefill->roofline_kinds()};
    } catch (const Error& e) {
      why = fmt::format("{} on {}: {}", d.model_path, d.system, e.what());
      return std::nullopt;
    }
  }

  Options o_;
  std::map<std::string, std::pair<std::unique_ptr<Timing>, std::string>> systems_;  // Timing, or why not
  std::map<std::tuple<std::string, std::string, std::vector<std::string>>, std::unique_ptr<Timing>>
      timings_;  // (system, kernel framework, kinds on the roofline)
  std::map<std::string, ModelEntry> models_;
  std::map<std::tuple<const ModelEntry*, std::string, const Timing*>, std::unique_ptr<serve::ModelSource>> sources_;
};

}  // namespace costdsl::cli::deployments
