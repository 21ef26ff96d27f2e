#pragma once
// Kernel families: what the lower-bound view, the manifest's slots and the pictures group
// kernels by. Each kernel declares its own (K::family); every slot carries its kernel's.
#include <cstdint>
#include <string_view>

namespace costdsl {

enum class Family : std::uint8_t { gemm, attention, memory, communication, other };

constexpr std::string_view name(Family f) noexcept {
  switch (f) {
    case Family::gemm: return "gemm";
    case Family::attention: return "attention";
    case Family::memory: return "memory";
    case Family::communication: return "communication";
    case Family::other: return "other";
  }
  return "?";
}

}  // namespace costdsl
