// costdsl: the command-line face of the library.
#include <iostream>

#include "cli_common.hpp"
#include "cmd_arch.hpp"
#include "cmd_gpus.hpp"
#include "cmd_kernel.hpp"
#include "cmd_sweep.hpp"
#include "costdsl/error.hpp"

int main(int argc, char** argv) {
  CLI::App app{"costdsl: compile-time cost trees for LLM-inference GPU time", "costdsl"};
  app.require_subcommand(1);
  costdsl::cli::add_gpus_command(app);
  costdsl::cli::add_kernel_commands(app);
  costdsl::cli::add_arch_commands(app);
  costdsl::cli::add_sweep_command(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);  // prints help or the parse error
    return code == 0 ? 0 : 2;
  } catch (const costdsl::Error& e) {
    std::cerr << "costdsl: error: " << e.what() << '\n';
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "costdsl: internal error: " << e.what() << '\n';
    return 1;
  }
  return 0;
}
