// costdsl gpus: the GPU catalogue.
#include <algorithm>
#include <iostream>

#include "cli_common.hpp"
#include "commands.hpp"
#include "output.hpp"
#include "costdsl/gpu_catalog.hpp"

namespace costdsl::cli {

void add_gpus_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("gpus", "List the GPUs costdsl knows (data/gpus.json) with their peak figures");
  auto json_out = std::make_shared<bool>(false);
  cmd->add_flag("--json", *json_out, "print JSON");
  cmd->callback([json_out] {
    const GpuCatalog catalog = GpuCatalog::load_default();
    auto opt = [](const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(nullptr); };
    if (*json_out) {
      nlohmann::json out = nlohmann::json::array();
      for (const auto& g : catalog.gpus())
        out.push_back({{"name", g.name},
                       {"aliases", g.aliases},
                       {"peak_bf16_flops", opt(g.peak_bf16)},
                       {"peak_fp8_flops", opt(g.peak_fp8)},
                       {"peak_fp4_flops", opt(g.peak_fp4)},
                       {"hbm_bandwidth", g.hbm_bandwidth},
                       {"hbm_capacity", g.hbm_capacity},
                       {"intra_node_bandwidth", g.intra_node_bandwidth},
                       {"inter_node_bandwidth", g.inter_node_bandwidth},
                       {"gpus_per_node", g.gpus_per_node},
                       {"sm_count", g.sm_count},
                       {"board_power_w", g.board_power_w}});
      cli::out() << out.dump(2) << '\n';
      return;
    }
    std::size_t w = 3;  // the name column fits the longest canonical name
    for (const auto& g : catalog.gpus()) w = std::max(w, g.name.size());
    cli::out() << fmt::format("{:<{}} {:>10} {:>10} {:>10} {:>9} {:>8} {:>9} {:>8} {:>6}  {}\n", "gpu", w, "bf16 TF/s",
                             "fp8 TF/s", "fp4 TF/s", "HBM GB/s", "HBM GiB", "NVLink GB/s", "net GB/s", "power",
                             "aliases");
    auto tf = [](const std::optional<double>& v) { return v ? fmt::format("{:.0f}", *v / 1e12) : std::string("-"); };
    for (const auto& g : catalog.gpus()) {
      std::string aliases;
      for (const auto& a : g.aliases) aliases += (aliases.empty() ? "" : ", ") + a;
      cli::out() << fmt::format("{:<{}} {:>10} {:>10} {:>10} {:>9.0f} {:>8.0f} {:>11.0f} {:>8.0f} {:>5.0f}W  {}\n",
                               g.name, w, tf(g.peak_bf16), tf(g.peak_fp8), tf(g.peak_fp4), g.hbm_bandwidth / 1e9,
                               g.hbm_capacity / double(1ull << 30), g.intra_node_bandwidth / 1e9,
                               g.inter_node_bandwidth / 1e9, g.board_power_w, aliases);
    }
  });
}

}  // namespace costdsl::cli
