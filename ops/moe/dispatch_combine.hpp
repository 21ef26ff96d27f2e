#pragma once
// L2 MoE dispatch / combine sizing (pure): the all-to-all buffers of the slowest
// rank, from the same routing math as the experts. The collectives themselves are
// atomic leaves the EP worklet strings in (they exist only because of EP).
//
//   dispatch  send: the rank's own tokens, one hidden row per assignment (top_k each)
//             recv: the rows routed to the rank's experts
//   combine   the mirror image: expert outputs go back to the tokens' owners
// The busiest sender and the busiest receiver bound the step; both maxima are taken
// (full-duplex links: the roofline times the larger direction).
#include <cstdint>

#include "costdsl/kernels/all_to_all.hpp"
#include "costdsl/ops/moe/routing.hpp"

namespace costdsl::ops::moe {

struct A2aSizes {
  kernels::AllToAll::Input dispatch;
  kernels::AllToAll::Input combine;
};

// max_source_tokens: the most tokens one rank owns when the layer dispatches;
// row_bytes: hidden · dtype bytes.
inline A2aSizes a2a_sizes(std::uint64_t max_source_tokens, std::uint32_t top_k, const EpLoad& load,
                          std::uint64_t row_bytes) noexcept {
  const std::uint64_t send = max_source_tokens * top_k * row_bytes;
  const std::uint64_t recv = std::uint64_t(load.max_rows()) * row_bytes;
  return {{send, recv}, {recv, send}};
}

}  // namespace costdsl::ops::moe
