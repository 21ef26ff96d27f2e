#pragma once
// `costdsl validate --deployments FILE`: measured deployments (TTFT and TPOT of a real
// server under a benchmark's closed loop of clients, aiconfigurator's silicon_sample.csv
// schema, ../shared/calibration/README.md) against costdsl's simulation of the same
// deployment: the model from its config.json, the GPU, the worker's TP degree, the
// concurrency as the batch cap, the clients starting together as the benchmark's do.
// The weights are quantized as the row's gemm_quant_mode and moe_quant_mode say; the KV
// cache as Options::kv says (KvPolicy). A row costdsl cannot express yet (int4
// weight-only, a disaggregated or pipelined deployment, a GPU or family it does not
// know) is a counted skip with its reason, never a silent guess.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "aiconfigurator.hpp"  // aic::Skips, aic::detail::Cells
#include "costdsl/detail/read_text_file.hpp"
#include "costdsl/error.hpp"
#include "costdsl/load_timing.hpp"
#include "costdsl/serve/model_source.hpp"
#include "costdsl/serve/plan_spec.hpp"
#include "costdsl/serve/planner.hpp"
#include "model.hpp"
#include "named_csv_rows.hpp"
#include "registry.hpp"

namespace costdsl::cli::deployments {

// One measured deployment (an aggregated one: the fields a disaggregated row adds are
// not read, the row is skipped). The worker's layout: tp GPUs of attention TP in each of
// dp attention groups (attention_dp_size), its experts over moe_tp × moe_ep = tp × dp
// GPUs; batch_size is each attention group's batch, so dp × batch_size clients.
struct Deployment {
  std::string id, backend, backend_version, model_path, system, where;
  std::uint32_t isl = 0, osl = 0, batch = 0, tp = 1, dp = 1, moe_tp = 1, moe_ep = 1;
  std::uint32_t clients() const noexcept { return batch * dp; }
  Quantization::Choice quantization;  // the weights' formats the row names (empty cell: the checkpoint's)
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
inline std::optional<Dtype> weight_format(const aic::detail::Cells& r, std::string_view col, std::string& why) {
  if (!r.has(col) || r.text(col).empty()) return std::nullopt;
  const std::string_view mode = r.text(col);
  if (mode == "int4_wo") {
    why = fmt::format("{} int4_wo: int4 weight-only GEMMs are not modelled", col);
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
}  // namespace detail

// Reads the table; malformed cells are FILE:LINE:COL errors, rows costdsl cannot express
// are counted in skips.
inline Table read(const std::filesystem::path& path) {
  const std::string file = path.string();
  const std::string text = costdsl::detail::read_text_file(path, "deployments table");
  Table t;
  const std::vector<std::string_view> required{"id", "backend", "model_path", "system", "mode", "isl", "osl",
                                               "batch_size", "tp_size", "silicon_ttft_ms", "silicon_tpot_ms"};
  for_each_named_row(text, file, required, "a deployments table", [&](std::size_t, const aic::detail::Cells& r) {
    ++t.read;
    const std::string where = r.where();
    const std::string mode(r.text("mode"));
    if (mode != "agg") {
      t.skips.add(fmt::format("mode {}: only aggregated deployments are simulated pinned so far", mode), where);
      return;
    }
    Deployment d;
    {
      std::string why;
      d.quantization.gemm = detail::weight_format(r, "gemm_quant_mode", why);
      if (why.empty()) d.quantization.moe = detail::weight_format(r, "moe_quant_mode", why);
      if (!why.empty()) {
        t.skips.add(why, where);
        return;
      }
    }
    if (r.has("pp_size") && !r.text("pp_size").empty() && r.count("pp_size") > 1) {
      t.skips.add("pp_size above 1: pipeline parallelism is not modelled", where);
      return;
    }
    d.id = r.text("id");
    d.backend = r.text("backend");
    d.backend_version = r.text_or("backend_version", "");
    d.model_path = r.text("model_path");
    d.system = r.text("system");
    d.where = where;
    d.isl = detail::small_count(r, "isl");
    d.osl = detail::small_count(r, "osl");
    d.batch = detail::small_count(r, "batch_size");
    d.tp = detail::small_count(r, "tp_size");
    // Dense rows leave the MoE and attention-DP columns empty or write 0.
    const auto degree = [&](std::string_view col) -> std::uint32_t {
      return r.has(col) && !r.text(col).empty() && r.count(col) > 0 ? detail::small_count(r, col) : 1;
    };
    d.dp = degree("attention_dp_size");
    d.moe_tp = degree("moe_tp_size");
    d.moe_ep = degree("moe_ep_size");
    if (d.osl < 2) {
      t.skips.add("osl below 2: no TPOT", where);
      return;
    }
    std::string why;
    const auto ttft = r.time("silicon_ttft_ms", why), tpot = r.time("silicon_tpot_ms", why);
    if (!ttft || !tpot) {
      t.skips.add(why, where);
      return;
    }
    d.ttft_ms = *ttft;
    d.tpot_ms = *tpot;
    t.rows.push_back(std::move(d));
  });
  return t;
}

// A model's config.json in the silicon layout: "org/name" → DIR/org--name_config.json.
inline std::filesystem::path config_path(const std::filesystem::path& dir, std::string_view model_path) {
  std::string name(model_path);
  for (std::size_t i = name.find('/'); i != std::string::npos; i = name.find('/', i + 2)) name.replace(i, 1, "--");
  return dir / (name + "_config.json");
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
  std::uint32_t token_budget = 8192;    // new tokens per iteration of the simulated worker
  serve::PlanSpec::ClientStart client_start = serve::PlanSpec::ClientStart::together;
  KvPolicy kv = KvPolicy::modelopt;
};

struct Simulated {
  const Deployment* row = nullptr;
  double ttft_ms = 0, tpot_ms = 0;  // costdsl's medians over the measured requests
  std::string quantization;         // as simulated (weights from the row, KV by the policy)
  double ttft_err() const { return ttft_ms / row->ttft_ms - 1; }
  double tpot_err() const { return tpot_ms / row->tpot_ms - 1; }
};

// Simulates every row the table could express; a row whose model, GPU or parallel layout
// costdsl rejects joins `skips` with the reason.
class Simulator {
 public:
  explicit Simulator(Options o) : o_(std::move(o)) {}

  std::vector<Simulated> run(const Table& t, aic::Skips& skips) {
    std::vector<Simulated> out;
    for (const Deployment& d : t.rows) {
      std::string why;
      if (auto s = simulate(d, why)) out.push_back(*s);
      else skips.add(why, d.where);
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

  const Timing* timing(const std::string& system, std::string& why) {
    auto it = timings_.find(system);
    if (it == timings_.end()) {
      std::unique_ptr<Timing> t;
      try {
        t = std::make_unique<Timing>(load_timing(system));
      } catch (const Error& e) {
        why = fmt::format("system {}: {}", system, e.what());
      }
      it = timings_.emplace(system, std::move(t)).first;
    }
    if (!it->second && why.empty()) why = fmt::format("system {}: not a GPU costdsl knows", system);
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
        m.expert_parallel = archs::find_family(m.family).expert_parallel;
      } catch (const Error& e) {
        m.why = fmt::format("model {}: {}", model_path, e.what());
      }
      it = models_.emplace(model_path, std::move(m)).first;
    }
    why = it->second.why;
    return why.empty() ? &it->second : nullptr;
  }

  std::optional<Simulated> simulate(const Deployment& d, std::string& why) {
    const Timing* t = timing(d.system, why);
    const ModelEntry* m = t ? model(d.model_path, why) : nullptr;
    if (!m) return std::nullopt;
    // The worker as costdsl's archs lay it out: a dense arch TP over its GPUs; a MoE arch
    // attention TP inside dp groups, the experts expert-parallel over all tp × dp GPUs, or
    // (moe_tp_size > 1, moe_ep_size 1) one attention group of tp GPUs whose every expert
    // is split tp ways: Parallel{tp, ep 1}, which the family builds with TP experts.
    serve::Parallel worker{d.tp, 1, 1};
    const bool tp_experts = m->expert_parallel && d.moe_tp > 1;
    if (tp_experts) {
      if (d.moe_ep > 1) {
        why = fmt::format("moe_tp_size {} x moe_ep_size {}: experts both tensor- and expert-parallel are not "
                          "modelled (one or the other: moe_tp_size 1, or moe_ep_size 1)",
                          d.moe_tp, d.moe_ep);
        return std::nullopt;
      }
      if (d.dp > 1) {
        why = fmt::format("attention_dp_size {} with moe_tp_size {}: TP experts run in one attention group "
                          "(attention_dp_size 1)",
                          d.dp, d.moe_tp);
        return std::nullopt;
      }
      if (d.moe_tp != d.tp) {
        why = fmt::format("moe_tp_size {} is not tp_size {}: TP experts are split over the attention group's GPUs",
                          d.moe_tp, d.tp);
        return std::nullopt;
      }
    } else if (m->expert_parallel) {
      worker.ep = d.tp * d.dp;
      if (d.moe_tp * d.moe_ep != worker.ep) {
        why = fmt::format("moe_tp_size {} x moe_ep_size {} is not tp_size {} x attention_dp_size {}: not one worker",
                          d.moe_tp, d.moe_ep, d.tp, d.dp);
        return std::nullopt;
      }
    } else if (d.dp > 1) {
      why = fmt::format("attention_dp_size {}: {} is dense (whole replicas are costdsl's data parallelism)", d.dp,
                        m->family);
      return std::nullopt;
    }
    serve::PlanSpec spec;
    spec.gpus = m->expert_parallel && !tp_experts ? worker.ep : worker.tp;  // EP experts span all ep GPUs
    spec.gpus_per_node = static_cast<std::uint32_t>(std::max(t->gpu().gpus_per_node, 1));
    spec.input_tokens = d.isl;
    spec.output_tokens = d.osl;
    spec.aggregated = true;
    spec.disaggregated = false;
    spec.load = serve::PlanSpec::LoadMode::concurrency;
    spec.concurrency = d.clients();
    spec.client_start = o_.client_start;
    spec.max_batch = d.batch;
    spec.token_budgets = {o_.token_budget};
    spec.hps = {1};
    spec.workers = {worker};
    try {
      HfConfig config = *m->config;
      Quantization::Choice q = d.quantization;
      switch (o_.kv) {
        case KvPolicy::modelopt:
          if (q.gemm == Dtype::fp8 || q.gemm == Dtype::fp4) q.kv = Dtype::fp8;
          break;
        case KvPolicy::checkpoint: break;
        case KvPolicy::bf16: q.kv = Dtype::bf16; break;
        case KvPolicy::fp8: q.kv = Dtype::fp8; break;
      }
      config.override_quantization(q);
      const std::unique_ptr<serve::ModelSource> source = open_model_source(config, m->family, *t);
      serve::Planner planner(*source, *t, spec);
      for (const serve::PlanRow& r : planner.run(0, 1, {})) {
        if (r.c.worker == worker && r.c.replicas == 1 && r.r.measured > 0)
          return Simulated{&d, r.r.ttft_s.p50 * 1e3, r.r.tpot_s.p50 * 1e3, config.quantization().text()};
      }
    } catch (const Error& e) {
      why = fmt::format("{} on {} at tp {}: {}", d.model_path, d.system, d.tp, e.what());
      return std::nullopt;
    }
    why = fmt::format("{} at tp {} (ep {}): not a layout the model accepts", m->family, worker.tp, worker.ep);
    return std::nullopt;
  }

  Options o_;
  std::map<std::string, std::unique_ptr<Timing>> timings_;
  std::map<std::string, ModelEntry> models_;
};

}  // namespace costdsl::cli::deployments
