// costdsl roofline eval DIR --gpus LIST [--params FILE] [--json]
// costdsl roofline serve DIR --gpus LIST
//
// The analytic roofline against the calibration data it is fitted on (DIR: aiconfigurator's
// tables per GPU and vidur's H100 medians, see calibration_rows.hpp). `eval` prints how far
// one parameter set is from every row group on every GPU; `serve` is the batch mode the
// fitter (scripts/calibrate_roofline.py) drives: rows read once, one JSON answer per
// request line (roofline_server.hpp has the protocol). Both time each row with its
// kernel's own roofline(), the code every analytic leaf runs.
#include <cmath>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <system_error>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "calibration_rows.hpp"
#include "cli_common.hpp"
#include "commands.hpp"
#include "output.hpp"
#include "costdsl/gpu_catalog.hpp"
#include "costdsl/load_roofline_params.hpp"
#include "error_summary.hpp"
#include "roofline_server.hpp"

namespace costdsl::cli {

namespace roofline_cmd {

struct State {
  std::string dir, params;
  std::vector<std::string> gpus;
  bool json = false;
};

// One (group, GPU) of `eval`: the rows the parameters time, and those they give no path
// (a custom all-reduce past its buffer: +inf, left out of the statistics and counted).
struct GroupResult {
  std::string group, gpu;
  ErrorSummary summary;
  std::size_t no_path = 0;
};

std::vector<GroupResult> evaluate(const calib::Rows& rows, const RooflineParams& params) {
  std::vector<Roofline> rf;
  for (const GpuSpec& g : rows.gpus) rf.emplace_back(g, params);
  std::map<std::pair<std::uint32_t, std::uint32_t>, std::pair<std::vector<double>, std::size_t>> by;
  for (const calib::Row& r : rows.rows) {
    const double t = calib::predict_s(r, rf[r.gpu]);
    auto& [err, no_path] = by[{r.group, r.gpu}];
    if (std::isinf(t)) ++no_path;
    else err.push_back((t - r.measured_s) / r.measured_s);
  }
  std::vector<GroupResult> out;
  for (const auto& [key, v] : by)
    out.push_back({rows.groups[key.first], rows.gpus[key.second].name, summarize_errors(v.first), v.second});
  std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.group < b.group; });
  return out;
}

calib::Rows load(const State& st) {
  const GpuCatalog catalog = GpuCatalog::load_default();
  return calib::load_rows(st.dir, st.gpus, catalog);
}

void add_common(CLI::App& cmd, State& st) {
  cmd.add_option("dir", st.dir,
                 "the calibration data: DIR/aiconfigurator/<gpu>/ tables and DIR/vidur_h100/ (with h100_sxm)")
      ->required();
  cmd.add_option("--gpus", st.gpus, "the GPUs whose tables to read, comma-separated (see `costdsl gpus`)")
      ->required()
      ->delimiter(',');
}

}  // namespace roofline_cmd

void add_roofline_command(CLI::App& app) {
  using roofline_cmd::State;
  auto* cmd = app.add_subcommand(
      "roofline", "The analytic roofline against its calibration data: its accuracy per row group and GPU (eval), "
                  "or the fitter's batch mode (serve)");
  cmd->require_subcommand(1);

  auto ev = std::make_shared<State>();
  auto* eval = cmd->add_subcommand(
      "eval", "Time every calibration row with the roofline and print median / p90 |relative error| and bias per "
              "row group and GPU");
  roofline_cmd::add_common(*eval, *ev);
  eval->add_option("--params", ev->params, "a roofline.json to evaluate (default: the built-in parameters, "
                                           "data/roofline.json as committed)")
      // A directory would fail in the stream's read (an internal error); a missing file is
      // reported by load_roofline_params.
      ->check(CLI::Validator(
          [](std::string& s) -> std::string {
            std::error_code ec;
            return std::filesystem::is_directory(s, ec) ? "is a directory, not a roofline.json: " + s : std::string();
          },
          "FILE", "not_a_directory"));
  eval->add_flag("--json", ev->json, "print one JSON object");
  eval->callback([ev] {
    const RooflineParams params = ev->params.empty() ? RooflineParams{} : load_roofline_params(ev->params);
    const calib::Rows rows = roofline_cmd::load(*ev);
    const auto results = roofline_cmd::evaluate(rows, params);
    if (ev->json) {
      nlohmann::json groups = nlohmann::json::array();
      for (const auto& r : results)
        groups.push_back({{"group", r.group},
                          {"gpu", r.gpu},
                          {"rows", r.summary.rows},
                          {"no_path", r.no_path},
                          {"median_abs_rel_err", r.summary.median_abs},
                          {"p90_abs_rel_err", r.summary.p90_abs},
                          {"bias", r.summary.bias}});
      nlohmann::json skipped = nlohmann::json::object();
      for (const auto& [why, e] : rows.skipped.reasons) skipped[why] = {{"count", e.count}, {"first", e.first}};
      cli::out() << nlohmann::json{{"rows", rows.rows.size()}, {"groups", groups}, {"skipped", skipped}}.dump(2)
                << '\n';
      return;
    }
    cli::out() << fmt::format("{} calibration rows on {} ({} skipped)\n", rows.rows.size(), fmt::join(ev->gpus, ", "),
                             rows.skipped.total());
    for (const auto& [why, e] : rows.skipped.reasons)
      cli::out() << fmt::format("  skipped {:>7}  {}  (first: {})\n", e.count, why, e.first);
    cli::out() << fmt::format("\n{:<24} {:<10} {:>8} {:>8} {:>9} {:>8} {:>8}\n", "group", "gpu", "rows", "median",
                             "p90", "bias", "no path");
    for (const auto& r : results) {
      if (r.summary.rows == 0) {
        cli::out() << fmt::format("{:<24} {:<10} {:>8} {:>8} {:>9} {:>8} {:>8}\n", r.group, r.gpu, 0, "-", "-", "-",
                                 r.no_path);
        continue;
      }
      cli::out() << fmt::format("{:<24} {:<10} {:>8} {:>7.1f}% {:>8.1f}% {:>+7.1f}% {:>8}\n", r.group, r.gpu,
                               r.summary.rows, 100 * r.summary.median_abs, 100 * r.summary.p90_abs,
                               100 * r.summary.bias, r.no_path);
    }
    cli::out() << "(relative error = (roofline - measured) / measured; no path: rows the parameters time at +inf, "
                 "a custom all-reduce past its buffer)\n";
  });

  auto sv = std::make_shared<State>();
  auto* serve = cmd->add_subcommand(
      "serve", "Read the calibration rows once, then answer one JSON request per stdin line (the fitter's batch "
               "mode; tools/roofline_server.hpp has the protocol)");
  roofline_cmd::add_common(*serve, *sv);
  serve->callback([sv] {
    const calib::Rows rows = roofline_cmd::load(*sv);
    calib::RooflineServer server(rows);
    server.run(std::cin, cli::out());
  });
}

}  // namespace costdsl::cli
