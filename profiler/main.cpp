// costdsl-profile: measures the L1 kernel kinds costdsl models on the local GPU over
// each kind's sweep grid and writes data/profiles/<gpu>/<kind>.csv. See README.md.
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "costdsl/dtype.hpp"
#include "costdsl/error.hpp"
#include "costdsl/gpu_catalog.hpp"
#include "costdsl/profile_csv.hpp"
#include "device_api.h"
#include "plan.hpp"
#include "shapes.hpp"

namespace fs = std::filesystem;
using namespace costdsl;
using namespace costdsl::profiler;

namespace {

constexpr int exit_no_gpu = 77;  // meson's "skipped"
constexpr std::string_view profiler_version = "costdsl-profile 1";

std::vector<Dtype> parse_dtypes(const std::vector<std::string>& names, std::string_view option) {
  std::vector<Dtype> out;
  for (const auto& n : names) out.push_back(parse_dtype(n, option));
  return out;
}

struct Progress {
  std::string label;
  int last_pct = -1;
  static void report(void* user, int done, int total) {
    auto* p = static_cast<Progress*>(user);
    const int pct = total > 0 ? done * 100 / total : 100;
    if (pct / 25 != p->last_pct / 25 || done == total) {
      p->last_pct = pct;
      std::fprintf(stderr, "\r  %-60s %3d%% (%d/%d)", p->label.c_str(), pct, done, total);
      if (done == total) std::fprintf(stderr, "\n");
      std::fflush(stderr);
    }
  }
};

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "costdsl-profile: measure costdsl's L1 kernel kinds on the local GPU over each kind's sweep grid and "
      "write <output>/<gpu>/<kind>.csv in the profile DB format (data/profiles/README.md). Collectives need "
      "several GPUs and stay analytic. Exits 77 when no CUDA GPU is usable."};
  std::vector<std::string> kinds, models, gemm_dtypes{"bf16", "fp8"};
  std::vector<std::uint32_t> tps;
  std::string output, gpu_override, data_dir;
  costdsl_prof::TimingOptions timing;
  std::size_t stride = 1;
  bool plan_only = false, list_kinds = false, no_check = false;
  app.add_option("--kinds", kinds, "kinds to measure (default: all measured kinds)")->delimiter(',');
  app.add_option("--models", models, "built-in models whose per-rank shapes are measured (default: all: "
                                     "llama3_8b, llama3_70b, qwen3_32b)")
      ->delimiter(',');
  app.add_option("--tp", tps, "TP degrees (default: each model's list, 1,2,4,8)")->delimiter(',');
  app.add_option("--gemm-dtypes", gemm_dtypes, "GEMM dtypes (bf16, fp8)")->delimiter(',');
  app.add_option("-o,--output", output, "profile folder; tables go to <output>/<gpu>/<kind>.csv (default: "
                                        "<data dir>/profiles)");
  app.add_option("--data-dir", data_dir, "costdsl data folder holding gpus.json (default: the source tree's data/)");
  app.add_option("--gpu", gpu_override, "canonical GPU name to write under (default: the device name through the "
                                        "gpus.json aliases)");
  app.add_option("--reps", timing.reps, "timed runs per point; the median is recorded (long points use fewer)")
      ->capture_default_str()
      ->check(CLI::Range(1, 1000));
  app.add_option("--warmup", timing.warmup, "untimed runs before measuring")->capture_default_str()->check(CLI::Range(0, 100));
  app.add_option("--target-ms", timing.target_ms, "per-point measuring budget that caps the repetitions")
      ->capture_default_str();
  app.add_option("--graph-launches", timing.graph_launches, "launches per CUDA graph for short kernels")
      ->capture_default_str()
      ->check(CLI::Range(1, 10000));
  app.add_option("--gemm-algos", timing.gemm_algos, "cuBLASLt heuristic algorithms tried per GEMM point (best-of-N)")
      ->capture_default_str()
      ->check(CLI::Range(1, 64));
  app.add_option("--stride", stride, "keep every n-th grid point (quick runs; the tables get sparser)")
      ->capture_default_str()
      ->check(CLI::Range(1, 1000));
  app.add_flag("--plan", plan_only, "print the jobs and the time estimate, measure nothing (needs no GPU)");
  app.add_flag("--list-kinds", list_kinds, "print the measured kinds and exit");
  app.add_flag("--no-check", no_check, "skip the correctness checks against the CPU references");
  CLI11_PARSE(app, argc, argv);

  try {
    if (list_kinds) {
      for (const auto& k : supported_kinds()) fmt::print("{}\n", k);
      return 0;
    }
    const fs::path data = data_dir.empty() ? default_data_dir() : fs::path(data_dir);
    const GpuCatalog catalog = GpuCatalog::load(data / "gpus.json");
    PlanOptions popts;
    popts.kinds = kinds;
    popts.gemm_dtypes = parse_dtypes(gemm_dtypes, "--gemm-dtypes");
    popts.point_stride = stride;
    const std::vector<Job> jobs = plan_jobs(select_rank_shapes(models, tps), popts);

    auto print_plan = [&](const GpuSpec& spec) {
      std::map<std::string, std::pair<std::size_t, std::size_t>> per_kind;  // configs, points
      std::map<std::string, double> est;
      std::vector<std::string> order;
      double total = 0;
      for (const Job& j : jobs) {
        if (!per_kind.count(j.kind)) order.push_back(j.kind);
        per_kind[j.kind].first += 1;
        per_kind[j.kind].second += j.points.size();
        const double s = estimate_seconds(j, spec, timing);
        est[j.kind] += s;
        total += s;
      }
      for (const auto& k : order)
        fmt::print("  {:<20} {:>4} configs {:>6} points  ~{:.0f} s\n", k, per_kind[k].first, per_kind[k].second,
                   est[k]);
      fmt::print("estimated time on {}: ~{:.1f} min (a roofline guess, not a promise)\n", spec.name, total / 60);
    };

    if (plan_only) {
      const GpuSpec& spec = catalog.find(gpu_override.empty() ? "h200_sxm" : gpu_override);
      for (const Job& j : jobs) fmt::print("{} [{}]: {} points\n", j.kind, j.label, j.points.size());
      print_plan(spec);
      return 0;
    }

    costdsl_prof::DeviceInfo info;
    char msg[1024] = {0};
    if (costdsl_prof::device_query(&info, msg, sizeof msg) != 0) {
      std::fprintf(stderr, "costdsl-profile: no usable CUDA GPU (%s); nothing measured\n", msg);
      return exit_no_gpu;
    }
    const std::string gpu = gpu_override.empty() ? canonical_gpu_name(catalog, info.name) : catalog.find(gpu_override).name;
    const fs::path out_dir = (output.empty() ? data / "profiles" : fs::path(output)) / gpu;
    fmt::print("device: {} (canonical {}), sm_{}{}, {} SMs, L2 {} MiB, memory {:.1f} GiB\n", info.name, gpu,
               info.sm_major, info.sm_minor, info.sm_count, info.l2_bytes >> 20,
               double(info.global_mem_bytes) / double(1ull << 30));
    fmt::print("driver (CUDA API) {}, runtime {}, cuBLASLt {}, built for sm_{}\n", info.driver_version,
               info.runtime_version, info.cublaslt_version ? std::to_string(info.cublaslt_version) : "absent",
               info.compiled_arch);
    fmt::print("clocks: SM max {} MHz, memory {} MHz, bus {} bit\n", info.clock_khz / 1000, info.mem_clock_khz / 1000,
               info.mem_bus_width);
    fmt::print("timing: median of up to {} runs after {} warm-ups, {} ms per point budget, CUDA graphs of {} "
               "launches below {} ms, GEMM best of {} algorithms\n",
               timing.reps, timing.warmup, timing.target_ms, timing.graph_launches, timing.graph_below_ms,
               timing.gemm_algos);
    print_plan(catalog.find(gpu));
    if (info.sm_major * 10 + info.sm_minor != info.compiled_arch)
      fmt::print("warning: the kernels were built for sm_{} but the device is sm_{}{}\n", info.compiled_arch,
                 info.sm_major, info.sm_minor);
    fs::create_directories(out_dir);

    int failures = 0;
    const auto t_all = std::chrono::steady_clock::now();
    std::vector<std::string> order;
    for (const Job& j : jobs)
      if (std::find(order.begin(), order.end(), j.kind) == order.end()) order.push_back(j.kind);
    for (const std::string& kind : order) {
      const auto t_kind = std::chrono::steady_clock::now();
      if (!no_check) {
        msg[0] = 0;
        if (costdsl_prof::device_self_check(kind_id(kind), msg, sizeof msg) != 0) {
          fmt::print("{}: correctness check FAILED, not measured: {}\n", kind, msg);
          ++failures;
          continue;
        }
        fmt::print("{}: correctness check passed ({})\n", kind, msg);
      }
      std::vector<CsvRow> rows;
      const ProfileSchema* schema = nullptr;
      std::size_t measured = 0, skipped = 0;
      for (const Job& j : jobs) {
        if (j.kind != kind) continue;
        schema = &j.schema;
        std::vector<costdsl_prof::PointResult> results(j.points.size());
        const costdsl_prof::DeviceJob dj = j.device_job();
        char backend[64] = {0};
        msg[0] = 0;
        Progress progress{fmt::format("{} [{}]", kind, j.label)};
        if (costdsl_prof::device_run_job(&dj, &timing, results.data(), backend, sizeof backend, msg, sizeof msg,
                                         &Progress::report, &progress) != 0) {
          fmt::print("{} [{}]: not measured: {}\n", kind, j.label, msg);
          ++failures;
          continue;
        }
        if (msg[0]) fmt::print("{} [{}]: {}\n", kind, j.label, msg);
        for (std::size_t i = 0; i < results.size(); ++i) {
          if (!results[i].ok) {
            ++skipped;
            continue;
          }
          rows.push_back(CsvRow{j.key, j.points[i], backend, results[i].time_ms});
          ++measured;
        }
      }
      costdsl_prof::device_release();
      const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t_kind).count();
      if (schema == nullptr || rows.empty()) {
        fmt::print("{}: nothing measured ({:.1f} s)\n", kind, secs);
        continue;
      }
      const std::string text = format_profile_csv(
          *schema, rows,
          {fmt::format("{} on {} ({}), {}", kind, gpu, info.name, profiler_version),
           fmt::format("driver {} runtime {} cublaslt {}; median of <= {} runs, {} warm-ups, graphs of {} below {} ms",
                       info.driver_version, info.runtime_version, info.cublaslt_version, timing.reps, timing.warmup,
                       timing.graph_launches, timing.graph_below_ms)});
      load_profile_csv_text(text, kind, *schema);  // the loader must accept what we write
      const fs::path file = out_dir / (kind + ".csv");
      std::ofstream(file, std::ios::binary) << text;
      fmt::print("{}: {} points measured, {} skipped, {:.1f} s -> {}\n", kind, measured, skipped, secs, file.string());
      if (skipped) ++failures;
    }
    fmt::print("total {:.1f} s; {}\n",
               std::chrono::duration<double>(std::chrono::steady_clock::now() - t_all).count(),
               failures ? fmt::format("{} problem(s), see above", failures) : std::string("all measured"));
    return failures ? 1 : 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "costdsl-profile: %s\n", e.what());
    return 2;
  }
}
