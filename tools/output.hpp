#pragma once
// Where the commands print. The binary prints to std::cout and std::cerr; an in-process
// run (run_captured: the C API and the Python module) points both at its own strings for
// the duration of the call, on its own thread, so concurrent runs never mix their output.
#include <ostream>

namespace costdsl::cli {

std::ostream& out();  // the command's result (tables, JSON)
std::ostream& err();  // progress, warnings and error messages
// Whether err() is a terminal (progress redrawn in place): never while captured.
bool err_is_terminal();

}  // namespace costdsl::cli
