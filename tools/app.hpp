#pragma once
// The whole costdsl command line as one call, so that main() and the CLI fuzz harness
// (tests/fuzz/fuzz_cli.cpp) run exactly the same code. Exit codes: 0 ok, 2 a bad flag,
// value or input file (the message names it), 1 an internal error (a bug: report it).
namespace costdsl::cli {

int run(int argc, const char* const* argv);

}  // namespace costdsl::cli
