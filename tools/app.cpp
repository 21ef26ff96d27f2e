// The costdsl command line as one call (see app.hpp).
#include "app.hpp"

#include <exception>
#include <iostream>
#include <sstream>
#include <string>
#include <utility>

#include <unistd.h>

#include "cli_common.hpp"
#include "commands.hpp"
#include "costdsl/error.hpp"
#include "output.hpp"

namespace costdsl::cli {

namespace {
thread_local std::ostream* t_out = nullptr;  // null: std::cout
thread_local std::ostream* t_err = nullptr;  // null: std::cerr
}  // namespace

std::ostream& out() { return t_out != nullptr ? *t_out : std::cout; }
std::ostream& err() { return t_err != nullptr ? *t_err : std::cerr; }
bool err_is_terminal() { return t_err == nullptr && isatty(STDERR_FILENO) != 0; }

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
    const int code = app.exit(e, out(), err());  // prints help or the parse error
    return code == 0 ? 0 : 2;
  } catch (const costdsl::Error& e) {
    err() << "costdsl: error: " << e.what() << '\n';
    return 2;
  } catch (const std::exception& e) {
    err() << "costdsl: internal error: " << e.what() << '\n';
    return 1;
  }
  return 0;
}

}  // namespace costdsl::cli

namespace costdsl::cli {

int run_captured(int argc, const char* const* argv, std::string& output, std::string& errors) {
  std::ostringstream o, e;
  t_out = &o;
  t_err = &e;
  int rc = 1;
  try {
    rc = run(argc, argv);
  } catch (...) {  // run() catches what the commands throw; this is for bad_alloc in its own handlers
    e << "costdsl: internal error: unexpected exception\n";
  }
  t_out = nullptr;
  t_err = nullptr;
  output = std::move(o).str();
  errors = std::move(e).str();
  return rc;
}

}  // namespace costdsl::cli
