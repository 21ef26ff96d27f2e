#pragma once
// The libFuzzer entry point every harness defines. Built two ways (tests/fuzz/README.md):
// with clang's -fsanitize=fuzzer for fuzzing, and with replay_main.cpp so that meson
// test replays the committed corpus through the same code with any compiler.
//
// A harness accepts costdsl::Error (a clear, named rejection of bad input) and nothing
// else: any other exception escapes to the fuzzer as a crash, and a non-finite number
// leaving a leaf or a total traps.
#include <cmath>
#include <cstddef>
#include <cstdint>

#include "costdsl/costdsl.hpp"
#include "costdsl/metrics.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace costdsl::fuzz {

inline void require_finite(const Metrics& m) {
  if (!std::isfinite(m.time_s) || !std::isfinite(m.flops) || !std::isfinite(m.bytes) || !std::isfinite(m.energy_j) ||
      m.time_s < 0)
    __builtin_trap();
}

}  // namespace costdsl::fuzz
