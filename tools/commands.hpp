#pragma once
// The command groups of the costdsl CLI, each defined in its own translation unit
// (tools/cmd_*.cpp) and wired into one CLI::App by run() (app.cpp).
#include <CLI/CLI.hpp>

namespace costdsl::cli {

void add_gpus_command(CLI::App& app);      // cmd_gpus.cpp
void add_kernel_commands(CLI::App& app);   // cmd_kernel.cpp: kernels, kernel <kind>
void add_arch_commands(CLI::App& app);     // cmd_arch.cpp: archs, describe, manifest, eval
void add_sweep_command(CLI::App& app);     // cmd_sweep.cpp
void add_import_command(CLI::App& app);    // cmd_import.cpp: import aiconfigurator
void add_validate_command(CLI::App& app);  // cmd_validate.cpp
void add_plan_command(CLI::App& app);      // cmd_plan.cpp: the deployment search (serve::Planner)
void add_simulate_command(CLI::App& app);  // cmd_simulate.cpp: one pinned deployment (serve::UnitSimulator)
void add_roofline_command(CLI::App& app);  // cmd_roofline.cpp: roofline eval, serve (the fitter's batch mode)

}  // namespace costdsl::cli
