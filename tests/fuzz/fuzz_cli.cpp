// Fuzzes the command line: the input is the argument list, one argument per line,
// run through the same costdsl::cli::run as the binary. Every outcome must be exit 0
// or 2 (a message naming the bad flag or value); exit 1 (an internal error) traps.
// Inputs that would write files (--svg, --csv) or name paths are skipped, so a fuzz
// run never touches the file system.
#include <iostream>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "app.hpp"
#include "fuzz_target.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static constexpr std::size_t max_args = 24, max_arg_length = 64;
  std::vector<std::string> args{"costdsl"};
  std::string_view rest(reinterpret_cast<const char*>(data), size);
  while (!rest.empty()) {
    const auto nl = rest.find('\n');
    const std::string_view arg = rest.substr(0, nl);
    if (arg.size() > max_arg_length || args.size() > max_args) return 0;
    if (arg.find("svg") != std::string_view::npos || arg.find("csv") != std::string_view::npos ||
        arg.find('/') != std::string_view::npos || arg.find('\0') != std::string_view::npos)
      return 0;
    args.emplace_back(arg);
    rest = nl == std::string_view::npos ? std::string_view{} : rest.substr(nl + 1);
  }
  std::vector<const char*> argv;
  for (const auto& a : args) argv.push_back(a.c_str());
  std::ostringstream sink;
  auto* out = std::cout.rdbuf(sink.rdbuf());
  auto* err = std::cerr.rdbuf(sink.rdbuf());
  const int code = costdsl::cli::run(static_cast<int>(argv.size()), argv.data());
  std::cout.rdbuf(out);
  std::cerr.rdbuf(err);
  if (code != 0 && code != 2) {
    std::cerr << "fuzz_cli: exit " << code << ": " << sink.str() << '\n';
    __builtin_trap();
  }
  return 0;
}
