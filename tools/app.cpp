// The costdsl command line as one call (see app.hpp).
#include "app.hpp"

#include <exception>
#include <iostream>

#include "cli_common.hpp"
#include "commands.hpp"
#include "costdsl/error.hpp"

namespace costdsl::cli {

int run(int argc, const char* const* argv) {
  CLI::App app{"costdsl: compile-time cost trees for LLM-inference GPU time", "costdsl"};
  app.require_subcommand(1);
  add_gpus_command(app);
  add_kernel_commands(app);
  add_arch_commands(app);
  add_sweep_command(app);
  add_import_command(app);
  add_validate_command(app);
  add_plan_command(app);
  add_simulate_command(app);
  add_roofline_command(app);
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

}  // namespace costdsl::cli
