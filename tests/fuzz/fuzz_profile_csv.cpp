// Fuzzes the profile-table path end to end: the strict CSV loader, then (through a
// profile DB on disk) the fitted 1D or 2D caches and the kernel evaluation at shapes
// on, between, off and far off the grid. Byte 0 picks the kind: even gemm (1D, m),
// odd attn_decode (2D, batch × total_kv); the rest is the file.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

#include "costdsl/costdsl.hpp"
#include "costdsl/kernels/attn_decode.hpp"
#include "costdsl/kernels/gemm.hpp"
#include "costdsl/kernel.hpp"
#include "costdsl/profile_csv.hpp"
#include "costdsl/timing.hpp"
#include "fuzz_target.hpp"

namespace {
using namespace costdsl;

const std::string& gpu_name() {
  static const std::string name = load_timing("h200", TimingMode::roofline).gpu().name;
  return name;
}

const std::filesystem::path& profile_root() {
  static const std::filesystem::path root = [] {
    auto dir = std::filesystem::temp_directory_path() / ("costdsl-fuzz-csv-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir / gpu_name());
    return dir;
  }();
  return root;
}

template <class K>
void run(std::string_view text, std::initializer_list<typename K::Input> shapes, typename K::Config config) {
  std::vector<std::string> warnings;
  try {
    (void)load_profile_csv_text(text, "fuzz.csv", profile_schema<K>(), &warnings);
  } catch (const Error&) {
  }
  std::ofstream(profile_root() / gpu_name() / (std::string(K::kind) + ".csv"), std::ios::binary | std::ios::trunc)
      << text;
  for (TimingMode mode : {TimingMode::profile, TimingMode::automatic}) {
    try {
      const Timing t = load_timing("h200", mode, profile_root());
      const Kernel<K> kernel(t, config);
      for (const auto& in : shapes) fuzz::require_finite(kernel.eval(in));
    } catch (const Error&) {
    }
  }
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
  if (data[0] % 2 == 0) {
    run<kernels::Gemm>(text, {{0}, {1}, {7}, {100}, {4096}, {5000}, {1u << 20}, {1ull << 40}},
                       {Dtype::bf16, 1280, 8192});
  } else {
    run<kernels::AttnDecode>(text, {{0, 0}, {1, 1}, {64, 131072}, {3, 100}, {1u << 20, 1ull << 40}},
                             {Dtype::bf16, 8, 1, 128});
  }
  return 0;
}
