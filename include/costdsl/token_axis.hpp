#pragma once
// The token axis shared by the profiler and the model (design §8): 32, 64,
// 128, 256, then steps of 128 to 4096, 256 to 8192, 1024 to 16384, 4096 to
// 32768, then 65536: 63 points. Decode-size GEMMs also need m = 1..16.
#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace costdsl {

inline constexpr auto token_axis = [] {
  std::array<std::uint32_t, 63> axis{};
  std::size_t i = 0;
  for (std::uint32_t t : {32u, 64u, 128u, 256u}) axis[i++] = t;
  for (std::uint32_t t = 384; t <= 4096; t += 128) axis[i++] = t;
  for (std::uint32_t t = 4352; t <= 8192; t += 256) axis[i++] = t;
  for (std::uint32_t t = 9216; t <= 16384; t += 1024) axis[i++] = t;
  for (std::uint32_t t = 20480; t <= 32768; t += 4096) axis[i++] = t;
  axis[i++] = 65536;
  return axis;
}();
static_assert(token_axis.back() == 65536 && token_axis[4] == 384 && token_axis[33] == 4096);

// m = 1..16, then the token axis from 32: what a GEMM table measures.
inline std::vector<std::uint32_t> gemm_m_axis() {
  std::vector<std::uint32_t> out;
  for (std::uint32_t m = 1; m <= 16; ++m) out.push_back(m);
  out.insert(out.end(), token_axis.begin(), token_axis.end());
  return out;
}

}  // namespace costdsl
