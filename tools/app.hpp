#pragma once
// The whole costdsl command line as one call, so that main() and the CLI fuzz harness
// (tests/fuzz/fuzz_cli.cpp) run exactly the same code. Exit codes: 0 ok, 2 a bad flag,
// value or input file (the message names it), 1 an internal error (a bug: report it).
#include <string>

namespace costdsl::cli {

int run(int argc, const char* const* argv);

// The same run with the command's output and its messages (progress, warnings, the
// error) written into `output` and `errors` instead of stdout and stderr: the C API's
// way to run `simulate` and `plan` exactly as the CLI does. Safe to call from several
// threads at once (each thread's output goes to its own strings).
int run_captured(int argc, const char* const* argv, std::string& output, std::string& errors);

}  // namespace costdsl::cli
