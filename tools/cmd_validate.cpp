// costdsl validate DIR --gpu G [--timing auto|profile|roofline] [--json]: the model against
// any table in aiconfigurator's schema that a user measured (tools/aiconfigurator.hpp reads
// it): per family the row count, the median and p90 |relative error|, the bias (median
// signed relative error) and the worst rows. This is how a user with their own
// measurements decides whether to trust the model.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "aiconfigurator.hpp"
#include "cli_common.hpp"
#include "commands.hpp"
#include "output.hpp"
#include "deployments.hpp"
#include "disagg_harness.hpp"
#include "costdsl/data_dir.hpp"
#include "costdsl/kernel.hpp"
#include "costdsl/reflect.hpp"
#include "error_summary.hpp"

namespace costdsl::cli {

namespace {

struct ValidatedRow {
  std::string shape;
  double measured_ms = 0, modelled_ms = 0;
  Coverage coverage = Coverage::none;
  double rel() const { return (modelled_ms - measured_ms) / measured_ms; }
};

struct FamilyStats {
  std::string family;
  std::size_t rows = 0, uncovered = 0;
  double median_abs = 0, p90_abs = 0, bias = 0;
  // Rows the model answered with a flag (EXTRAPOLATED, RENORMALIZED: a neighbour missing,
  // SCALED: another config's table, ANALYTIC) and the median over the others: how the
  // table does where it is complete.
  std::size_t flagged = 0;
  double median_abs_unflagged = 0;
  std::vector<ValidatedRow> worst;
};

// The summary of error_summary.hpp, with the flagged rows and the worst ones.
FamilyStats family_stats(std::string family, std::vector<ValidatedRow> rows, std::size_t uncovered,
                                std::size_t worst) {
  FamilyStats f;
  f.family = std::move(family);
  f.rows = rows.size();
  f.uncovered = uncovered;
  if (rows.empty()) return f;
  std::vector<double> err;
  for (const auto& r : rows) err.push_back(r.rel());
  const ErrorSummary s = summarize_errors(err);
  f.median_abs = s.median_abs;
  f.p90_abs = s.p90_abs;
  f.bias = s.bias;
  std::vector<double> clean;
  for (const auto& r : rows) {
    if (r.coverage == Coverage::none) clean.push_back(std::abs(r.rel()));
    else ++f.flagged;
  }
  f.median_abs_unflagged = median_of(clean);
  std::sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) { return std::abs(a.rel()) > std::abs(b.rel()); });
  rows.resize(std::min(worst, rows.size()));
  f.worst = std::move(rows);
  return f;
}

// Kernels bound once per (kind, config, backends, preferred framework) and reused over a
// table's rows. A row measured in a framework is answered preferring that framework's
// tables (Timing::with_kernel_framework), unless --kernel-framework chose for every row.
class RowEvaluator {
 public:
  explicit RowEvaluator(const Timing& t) : timing_(t) {}
  template <KernelDef K>
  Metrics eval(const aic::Call<K>& c, const std::vector<std::string>& backends, const std::string& framework = {}) {
    const std::string key = fmt::format("{}|{}|{}|{}", K::kind, fmt::join(profile_key(c.config), ","),
                                        fmt::join(backends, ","), framework);
    std::shared_ptr<void>& k = kernels_[key];
    if (!k) {
      const bool given = !timing_.kernel_framework().empty();
      k = std::make_shared<Kernel<K>>(given ? timing_ : timing_.with_kernel_framework(framework), c.config, backends);
    }
    return static_cast<const Kernel<K>*>(k.get())->eval(c.input);
  }

 private:
  const Timing& timing_;
  std::map<std::string, std::shared_ptr<void>> kernels_;
};

// The families a validation reports, in order, with their rows.
std::vector<FamilyStats> validate_rows(const std::vector<aic::Row>& rows, const Timing& timing,
                                              std::size_t worst) {
  RowEvaluator ev(timing);
  std::map<std::string, std::vector<ValidatedRow>> fams;
  std::map<std::string, std::size_t> uncovered;
  // all_reduce: per backend, and the best measured backend vs the model's best.
  std::map<std::pair<std::uint64_t, std::uint64_t>, std::pair<double, const aic::Call<kernels::AllReduce>*>> best;
  for (const aic::Row& r : rows) {
    aic::visit_call(r, [&](const auto& c) {
      using K = typename std::remove_cvref_t<decltype(c)>::Kind;
      std::string family;
      std::vector<std::string> backends = K::default_backends();
      if constexpr (std::is_same_v<K, kernels::AllReduce>) {
        family = "all_reduce." + r.backend;
        backends = {r.backend};
        auto [it, fresh] = best.try_emplace({c.config.num_gpus.value, c.input.bytes}, r.time_ms, &c);
        if (!fresh && r.time_ms < it->second.first) it->second = {r.time_ms, &c};
      } else if constexpr (std::is_same_v<K, kernels::AllGather>) {
        family = "all_gather." + r.backend;
        backends = {r.backend};
      } else if constexpr (std::is_same_v<K, kernels::AttnDecode>) {
        family = fmt::format("{}.{}", K::kind, name(c.config.kv_dtype));
      } else {
        family = fmt::format("{}.{}", K::kind, name(c.config.dtype));
      }
      // Weight-only experts (gpt-oss's MXFP4 weights under bf16 activations) are their own family.
      if constexpr (requires { c.config.weight_dtype; }) {
        if (c.config.weight_dtype != c.config.dtype) family += fmt::format("_{}", name(c.config.weight_dtype));
      }
      // SGLang's rows keep the plain family name (the shipped tables are SGLang's); another
      // framework's rows are a family of their own.
      const bool framework_row = Timing::is_kernel_framework(r.backend);
      if (framework_row && r.backend != "sglang") family += "." + r.backend;
      // Experts timed under a power law are a family of their own: the roofline (and a table
      // of another load) answer for balanced routing.
      if constexpr (requires { c.config.expert_load; }) {
        if (c.config.expert_load != ExpertLoad::balanced) family += "." + std::string(name(c.config.expert_load));
      }
      const Metrics m = ev.eval(c, backends, framework_row ? r.backend : std::string());
      if (has(m.coverage, Coverage::no_coverage)) {
        ++uncovered[family];
        return;
      }
      fams[family].push_back(
          {fields_text(c.config) + " " + fields_text(c.input), r.time_ms, m.time_ms(), m.coverage});
    });
  }
  for (const auto& [key, b] : best) {
    const auto& [ms, c] = b;
    const Metrics m = ev.eval(*c, kernels::AllReduce::default_backends());
    const std::string family = fmt::format("all_reduce.best.{}gpu", key.first);
    if (has(m.coverage, Coverage::no_coverage)) {
      ++uncovered[family];
      continue;
    }
    fams[family].push_back({fields_text(c->config) + " " + fields_text(c->input), ms, m.time_ms(), m.coverage});
  }
  for (const auto& [f, n] : uncovered) fams[f];  // a family with only uncovered rows still shows
  std::vector<FamilyStats> out;
  for (auto& [f, v] : fams) out.push_back(family_stats(f, std::move(v), uncovered[f], worst));
  return out;
}

// validate --deployments: per (backend, GPU, mode) the median |relative error| and bias of
// TTFT and TPOT, the skipped rows by reason, the worst rows.
void report_deployments(const deployments::Table& table, const std::vector<deployments::Simulated>& sims,
                        const aic::Skips& skips, std::size_t worst, bool json, const std::string& engine) {
  std::map<std::tuple<std::string, std::string, std::string>, std::vector<const deployments::Simulated*>> groups;
  for (const auto& s : sims)
    groups[{s.row->backend, s.row->system, s.row->disaggregated ? "disagg" : "agg"}].push_back(&s);
  const auto summary = [](const std::vector<const deployments::Simulated*>& v, auto err) {
    std::vector<double> e;
    for (const auto* s : v) e.push_back(err(*s));
    return summarize_errors(e);
  };
  const auto ttft = [](const deployments::Simulated& s) { return s.ttft_err(); };
  const auto tpot = [](const deployments::Simulated& s) { return s.tpot_err(); };
  std::vector<const deployments::Simulated*> by_worst;
  for (const auto& s : sims) by_worst.push_back(&s);
  std::sort(by_worst.begin(), by_worst.end(), [](const auto* a, const auto* b) {
    return std::max(std::abs(a->ttft_err()), std::abs(a->tpot_err())) >
           std::max(std::abs(b->ttft_err()), std::abs(b->tpot_err()));
  });
  by_worst.resize(std::min(worst, by_worst.size()));
  const auto row_json = [](const deployments::Simulated& s) {
    const deployments::Deployment& d = *s.row;
    nlohmann::json j{{"id", d.id}, {"where", d.where}, {"backend", d.backend}, {"gpu", d.system},
                          {"model", d.model_path}, {"isl", d.isl}, {"osl", d.osl}, {"concurrency", d.clients},
                          {"mode", d.disaggregated ? "disagg" : "agg"}, {"tp", d.worker.tp},
                          {"attention_dp", d.worker.dp}, {"moe_ep", d.worker.moe_ep},
                          {"quantization", s.quantization}, {"framework", serve::name(s.framework)},
                          {"harness", s.harness},
                          {"token_budget", s.token_budget},
                          {"ttft_ms", {{"measured", d.ttft_ms}, {"modelled", s.ttft_ms}}},
                          {"tpot_ms", {{"measured", d.tpot_ms}, {"modelled", s.tpot_ms}}}};
    if (!d.disaggregated && !s.roofline_kinds.empty()) j["roofline_kinds"] = s.roofline_kinds;
    if (d.disaggregated) {  // the unit as simulated, and where it was read when the row did not record it
      const auto role = [](const deployments::WorkerLayout& w, std::uint32_t workers,
                           const std::vector<std::string>& roofline_kinds) {
        nlohmann::json r{{"workers", workers}, {"tp", w.tp},       {"attention_dp", w.dp},
                         {"moe_tp", w.moe_tp}, {"moe_ep", w.moe_ep}, {"batch", w.batch}};
        if (!w.moe_kernel.empty()) r["moe_kernel"] = w.moe_kernel;
        if (!roofline_kinds.empty()) r["roofline_kinds"] = roofline_kinds;
        return r;
      };
      j["prefill"] = role(d.prefill, d.prefill_workers, s.prefill_roofline_kinds);
      j["decode"] = role(d.worker, d.decode_workers, s.roofline_kinds);
      if (!d.unit_source.empty()) j["unit_source"] = d.unit_source;
    }
    return j;
  };
  if (json) {
    nlohmann::json j{{"rows", table.read},      {"simulated", sims.size()}, {"engine", engine},
                     {"skipped", nlohmann::json::object()},
                     {"groups", nlohmann::json::array()}, {"worst", nlohmann::json::array()}};
    for (const auto& [why, e] : skips.reasons) j["skipped"][why] = {{"count", e.count}, {"first", e.first}};
    for (const auto& [key, v] : groups) {
      const ErrorSummary t = summary(v, ttft), o = summary(v, tpot);
      j["groups"].push_back({{"backend", std::get<0>(key)}, {"gpu", std::get<1>(key)}, {"mode", std::get<2>(key)},
                             {"rows", v.size()},
                             {"ttft", {{"median_abs_rel_err", t.median_abs}, {"p90_abs_rel_err", t.p90_abs},
                                       {"bias", t.bias}}},
                             {"tpot", {{"median_abs_rel_err", o.median_abs}, {"p90_abs_rel_err", o.p90_abs},
                                       {"bias", o.bias}}}});
    }
    for (const auto* s : by_worst) j["worst"].push_back(row_json(*s));
    cli::out() << j.dump(2) << '\n';
    return;
  }
  cli::out() << fmt::format("{} deployments read, {} simulated, {} skipped\nengine: {}\n", table.read, sims.size(),
                           skips.total(), engine);
  for (const auto& [why, e] : skips.reasons)
    cli::out() << fmt::format("  skipped {:>6}  {} (first: {})\n", e.count, why, e.first);
  cli::out() << fmt::format("\n{:<8} {:<10} {:<6} {:>5} {:>13} {:>8} {:>13} {:>8}\n", "backend", "gpu", "mode",
                           "rows", "TTFT med|err|", "bias", "TPOT med|err|", "bias");
  for (const auto& [key, v] : groups) {
    const ErrorSummary t = summary(v, ttft), o = summary(v, tpot);
    cli::out() << fmt::format("{:<8} {:<10} {:<6} {:>5} {:>12.1f}% {:>+7.1f}% {:>12.1f}% {:>+7.1f}%\n",
                             std::get<0>(key), std::get<1>(key), std::get<2>(key), v.size(), 100 * t.median_abs,
                             100 * t.bias, 100 * o.median_abs, 100 * o.bias);
  }
  if (by_worst.empty()) return;
  cli::out() << "\nworst rows (measured vs modelled, median over the simulated requests):\n";
  for (const auto* s : by_worst) {
    const deployments::Deployment& d = *s->row;
    cli::out() << fmt::format("  {} ({}): TTFT {:.4g} vs {:.4g} ms ({:+.0f}%), TPOT {:.4g} vs {:.4g} ms ({:+.0f}%)\n",
                             d.id, d.where, d.ttft_ms, s->ttft_ms, 100 * s->ttft_err(), d.tpot_ms, s->tpot_ms,
                             100 * s->tpot_err());
  }
}

}  // namespace

void add_validate_command(CLI::App& app) {
  struct State {
    std::string dir;
    TimingOptions timing;
    bool json = false;
    std::size_t worst = 3;
    std::string deployments, model_configs;
    serve::PlanSpec::ClientStart client_start = serve::PlanSpec::ClientStart::together;
    serve::PlanSpec::Warmup warmup = deployments::Options{}.warmup;
    std::uint32_t rounds = serve::PlanSpec::benchmark_rounds;  // taken only where given
    double min_length_ratio = 1;
    deployments::Options::Statistic statistic = deployments::Options{}.statistic;
    std::vector<std::string> config_for;
    std::string token_budget = "benchmark";
    std::string recipe = "provenance";
    EngineOptions engine;
    deployments::KvPolicy kv = deployments::KvPolicy::modelopt;
    unsigned threads = std::max(1u, std::thread::hardware_concurrency());
  };
  auto st = std::make_shared<State>();
  auto* cmd = app.add_subcommand(
      "validate", "Compare costdsl with measured tables in aiconfigurator's schema (per family rows, median and "
                  "p90 |relative error|, bias, worst rows), or with measured deployments (--deployments)");
  auto* dir =
      cmd->add_option("dir", st->dir, "a directory of measurement tables (.csv / .txt, plain or .gz), or one table");
  st->timing.add(*cmd, false);
  auto* deployments = cmd->add_option(
      "--deployments", st->deployments,
      "instead of kernel tables: measured deployments (silicon_sample.csv's columns: id, backend, model_path, "
      "system, mode, isl, osl, silicon_ttft_ms, silicon_tpot_ms; agg: batch_size = the benchmark's concurrency per "
      "attention-DP group, tp_size, optional attention_dp_size, moe_tp_size, moe_ep_size; disagg: the same under "
      "prefill_ and decode_ with prefill_num_workers and decode_num_workers; optional gemm_quant_mode, "
      "moe_quant_mode), each simulated pinned to its GPU, workers, quantization and concurrency")
      ->check(CLI::ExistingFile)
      ->excludes(dir);
  cmd->add_option("--model-configs", st->model_configs,
                  "--deployments: the folder of the models' config.json files, named org--name_config.json "
                  "(default: model_configs/ beside the table)")
      ->check(CLI::ExistingDirectory)
      ->needs(deployments);
  cmd->add_option("--config-for", st->config_for,
                  "--deployments: MODEL=FILE, the config.json of a model whose file is not in --model-configs under "
                  "its own name (repeatable)")
      ->needs(deployments);
  cmd->add_option("--token-budget", st->token_budget,
                  "--deployments: new tokens per iteration of each simulated worker, which the table does not "
                  "record: benchmark (what the row's harness launched (--recipe): aiconfigurator's generator batch "
                  "cap + ISL + 1500, ISL + 1500 on prefill workers; InferenceX's scripts their max_num_tokens), "
                  "framework (its default), or a number")
      ->check(CLI::IsMember({"benchmark", "framework"}) | CLI::Range(1u, 1u << 20))
      ->capture_default_str()
      ->needs(deployments);
  cmd->add_option("--recipe", st->recipe,
                  "--deployments: the launch flags and load each row ran with, which the table does not record: "
                  "provenance (its harness's, read from silicon_data_source: aiconfigurator's benchmark generator, "
                  "or the InferenceX script that measured it; tools/benchmark_recipe.hpp lists them) or "
                  "aiconfigurator (the generator's for every row); --rounds, --min-length-ratio and the engine "
                  "flags override either")
      ->check(CLI::IsMember({"provenance", "aiconfigurator"}))
      ->capture_default_str()
      ->needs(deployments);
  st->engine.add(*cmd);
  for (const char* flag : EngineOptions::flags) cmd->get_option(flag)->needs(deployments);
  // Unset, each row runs its own backend's scheduler, not `ideal`.
  cmd->get_option("--framework")->default_str("each row's backend");
  add_client_start_option(*cmd, st->client_start)->needs(deployments);
  const ClosedLoopOptions loop = add_closed_loop_options(*cmd, st->warmup, st->rounds);
  add_length_ratio_option(*cmd, st->min_length_ratio)->needs(deployments)->default_str("the row's harness's");
  loop.rounds->default_str("the row's harness's (aiconfigurator 20, InferenceX 10)");
  loop.warmup->needs(deployments);
  loop.rounds->needs(deployments);
  cmd->add_option("--statistic", st->statistic,
                  "--deployments: which of the simulated requests' TTFT and TPOT a row is compared with: mean "
                  "(aiperf's avg) or p50")
      ->transform(CLI::CheckedTransformer(std::map<std::string, deployments::Options::Statistic>{
          {"mean", deployments::Options::Statistic::mean}, {"p50", deployments::Options::Statistic::p50}}))
      ->default_str("mean")
      ->needs(deployments);
  cmd->add_option("--kv-dtype", st->kv,
                  "--deployments: the KV cache's dtype, which the table does not record: modelopt (the script's "
                  "where the row's recipe reads it; else fp8 where the GEMMs are fp8 or nvfp4, as NVIDIA's ModelOpt "
                  "checkpoints ship, and the checkpoint's otherwise), checkpoint "
                  "(the config's own), bf16 or fp8")
      ->transform(CLI::CheckedTransformer(std::map<std::string, deployments::KvPolicy>{
          {"modelopt", deployments::KvPolicy::modelopt},
          {"checkpoint", deployments::KvPolicy::checkpoint},
          {"bf16", deployments::KvPolicy::bf16},
          {"fp8", deployments::KvPolicy::fp8}}))
      ->default_str("modelopt")
      ->needs(deployments);
  cmd->add_option("--threads", st->threads,
                  "--deployments: rows simulated at once (default: the machine's hardware threads; the report is "
                  "the same for any count)")
      ->check(CLI::Range(1u, 256u))
      ->capture_default_str()
      ->needs(deployments);
  cmd->add_option("--worst", st->worst, "worst rows to show per family")->capture_default_str()->check(non_negative);
  cmd->add_flag("--json", st->json, "print one JSON object");
  cmd->callback([st, cmd] {
    if (!st->deployments.empty()) {
      if (!st->timing.gpu.empty())
        throw InputError("validate --deployments: --gpu is not taken, each deployment names its GPU (column system)");
      deployments::Options o;
      o.model_configs = st->model_configs.empty()
                            ? std::filesystem::path(st->deployments).parent_path() / "model_configs"
                            : std::filesystem::path(st->model_configs);
      for (const std::string& kv : st->config_for) {
        const std::size_t eq = kv.find('=');
        if (eq == std::string::npos || eq == 0 || eq + 1 == kv.size())
          throw InputError(fmt::format("--config-for '{}': expected MODEL=FILE (e.g. org/name=org--name_config.json)", kv));
        o.config_for[kv.substr(0, eq)] = kv.substr(eq + 1);
      }
      if (st->token_budget == "benchmark") {
        o.budget = deployments::Options::Budget::benchmark;
      } else if (st->token_budget == "framework") {
        o.budget = deployments::Options::Budget::framework;
      } else {
        o.budget = deployments::Options::Budget::fixed;
        o.token_budget = static_cast<std::uint32_t>(std::stoul(st->token_budget));
      }
      o.engine = st->engine;
      o.framework_given = cmd->count("--framework") > 0;
      o.client_start = st->client_start;
      o.warmup = st->warmup;
      if (cmd->count("--rounds") > 0) o.rounds = st->rounds;
      if (cmd->count("--min-length-ratio") > 0) o.min_length_ratio = st->min_length_ratio;
      o.recipes = st->recipe == "provenance";
      o.statistic = st->statistic;
      o.kv = st->kv;
      o.timing = parse_timing_mode(st->timing.timing);
      if (!st->timing.profile_dir.empty()) o.profile_dir = st->timing.profile_dir;
      if (!st->timing.kernel_framework.empty()) o.kernel_framework = st->timing.kernels_of({});
      if (cmd->count("--roofline-kind") > 0) o.roofline_kinds = st->timing.roofline_kinds;
      deployments::Table table = deployments::read(st->deployments);
      // A disaggregated row without its worker counts takes them from its harness's sweep
      // config where its provenance names InferenceX (data/harness/, DisaggHarness), and one
      // with them what its recipe ran.
      if (o.recipes && std::any_of(table.rows.begin(), table.rows.end(), [](const deployments::Deployment& d) {
            return !d.unit_recorded ||
                   (d.disaggregated && deployments::recipe_for(deployments::provenance_of(d)).harness == "inferencex");
          }))
        deployments::resolve_units(
            table, deployments::DisaggHarness::load(deployments::DisaggHarness::default_path(default_data_dir())));
      aic::Skips skips = table.skips;
      const std::vector<deployments::Simulated> sims = deployments::Simulator(o).run(table, skips, st->threads);
      const std::string engine = fmt::format(
          "{}; launch flags and load: {}; token budget: {}; load: {} clients, warm-up {}, {}{}, {} compared",
          o.framework_given ? fmt::format("{} for every row", st->engine.framework)
                            : std::string("each row's backend's scheduler (trtllm, vllm, sglang; ideal otherwise)"),
          o.recipes ? "each row's harness's, by its provenance (aiconfigurator's generator, or InferenceX's scripts "
                      "where the row came from them)"
                    : "aiconfigurator's benchmark generator's for every row",
          o.budget == deployments::Options::Budget::benchmark
              ? std::string("the harness's (aiconfigurator: batch cap + ISL + 1500, ISL + 1500 on prefill workers; "
                            "InferenceX: its scripts' max_num_tokens)")
          : o.budget == deployments::Options::Budget::framework ? std::string("the framework's default")
                                                                : std::to_string(o.token_budget),
          serve::PlanSpec::name(o.client_start), serve::PlanSpec::name(o.warmup),
          o.rounds ? fmt::format("{} rounds measured", *o.rounds) : std::string("the harness's rounds measured"),
          o.min_length_ratio ? fmt::format(", lengths drawn from {} × ISL / OSL up", *o.min_length_ratio)
                             : std::string(),
          o.statistic == deployments::Options::Statistic::mean ? "means" : "medians");
      report_deployments(table, sims, skips, st->worst, st->json, engine);
      return;
    }
    if (st->dir.empty()) throw InputError("validate: give a directory of measurement tables, or --deployments FILE");
    if (st->timing.gpu.empty()) throw InputError("validate DIR: --gpu is required (the GPU the tables measured)");
    const Timing timing = st->timing.make();
    const aic::ReadResult read = aic::read_tables(st->dir);
    const std::vector<FamilyStats> fams = validate_rows(read.rows, timing, st->worst);
    std::size_t skipped = 0;
    std::map<std::string, std::size_t> reasons;
    for (const auto& f : read.files)
      for (const auto& [why, e] : f.skips.reasons) {
        reasons[why] += e.count;
        skipped += e.count;
      }
    if (st->json) {
      nlohmann::json j{{"gpu", timing.gpu().name}, {"timing", st->timing.timing}, {"rows", read.rows.size()},
                       {"skipped", reasons},        {"families", nlohmann::json::array()}};
      for (const auto& f : fams) {
        nlohmann::json w = nlohmann::json::array();
        for (const auto& r : f.worst)
          w.push_back({{"shape", r.shape}, {"measured_ms", r.measured_ms}, {"modelled_ms", r.modelled_ms},
                       {"rel_err", r.rel()}, {"coverage", coverage_json(r.coverage)}});
        j["families"].push_back({{"family", f.family}, {"rows", f.rows}, {"uncovered", f.uncovered},
                                 {"median_abs_rel_err", f.median_abs}, {"p90_abs_rel_err", f.p90_abs},
                                 {"bias", f.bias}, {"flagged", f.flagged},
                                 {"median_abs_rel_err_unflagged", f.median_abs_unflagged}, {"worst", w}});
      }
      cli::out() << j.dump(2) << '\n';
      return;
    }
    cli::out() << fmt::format("{} measured rows ({} skipped) against costdsl on {} (timing {})\n", read.rows.size(),
                             skipped, timing.gpu().name, st->timing.timing);
    for (const auto& [why, n] : reasons) cli::out() << fmt::format("  skipped {:>7}  {}\n", n, why);
    cli::out() << fmt::format("\n{:<26} {:>7} {:>10} {:>13} {:>10} {:>8} {:>8} {:>14}\n", "family", "rows",
                             "uncovered", "median |err|", "p90 |err|", "bias", "flagged", "unflagged med.");
    for (const auto& f : fams) {
      if (f.rows == 0) {
        cli::out() << fmt::format("{:<26} {:>7} {:>10} {:>13} {:>10} {:>8}\n", f.family, 0, f.uncovered, "-", "-", "-");
        continue;
      }
      cli::out() << fmt::format("{:<26} {:>7} {:>10} {:>12.1f}% {:>9.1f}% {:>+7.1f}% {:>8} {:>13.1f}%\n", f.family,
                               f.rows, f.uncovered, 100 * f.median_abs, 100 * f.p90_abs, 100 * f.bias, f.flagged,
                               100 * f.median_abs_unflagged);
    }
    cli::out() << "(flagged: answered EXTRAPOLATED, RENORMALIZED, SCALED or ANALYTIC; unflagged med.: the median "
                 "over the others)\n";
    if (st->worst == 0) return;
    cli::out() << "\nworst rows (measured vs modelled):\n";
    for (const auto& f : fams)
      for (const auto& r : f.worst)
        cli::out() << fmt::format("  {:<24} {}: {:.4g} ms vs {:.4g} ms ({:+.0f}%) [{}]\n", f.family, r.shape,
                                 r.measured_ms, r.modelled_ms, 100 * r.rel(), coverage_text(r.coverage));
  });
}

}  // namespace costdsl::cli
