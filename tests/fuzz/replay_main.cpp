// Replays fuzz inputs through a harness without libFuzzer: each argument is a file or a
// directory of files (a corpus). Exits non-zero if any input crashed the harness's checks
// (a trap or an escaping exception ends the process, which meson reports as a failure).
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "fuzz_target.hpp"

namespace {
int replay(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "replay: cannot read %s\n", file.c_str());
    return 1;
  }
  const std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
  return 0;
}
}  // namespace

int main(int argc, char** argv) {
  int failures = 0, inputs = 0;
  for (int a = 1; a < argc; ++a) {
    // Absolute: a harness may change the working directory (fuzz_cli.cpp runs in a sandbox).
    const std::filesystem::path p = std::filesystem::absolute(argv[a]);
    if (std::filesystem::is_directory(p)) {
      for (const auto& e : std::filesystem::directory_iterator(p))
        if (e.is_regular_file()) failures += replay(e.path()), ++inputs;
    } else {
      failures += replay(p), ++inputs;
    }
  }
  std::printf("replayed %d input(s), %d unreadable\n", inputs, failures);
  return failures == 0 && inputs > 0 ? 0 : 1;
}
