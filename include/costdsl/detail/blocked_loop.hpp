#pragma once
// for_each_index_blocked(n, f): f(i) for every i in [0, n), as blocks of 16 and a tail.
// At -O2 (the project's build) GCC 12 vectorises a loop only when its trip count needs no
// scalar epilogue and it needs no run-time overlap check; a fixed 16-step inner loop over
// one array qualifies. So a reduction or an update over one array written through this is
// vectorised in every build, not only at -O3 (a serving simulator's few hundred decodes
// took ~5 instructions each, scalar). Keep one array per loop for the same reason.
#include <cstddef>

namespace costdsl::detail {

inline constexpr std::size_t vector_block = 16;

template <class F>
inline void for_each_index_blocked(std::size_t n, F&& f) {
  const std::size_t blocked = n / vector_block * vector_block;
  for (std::size_t i = 0; i < blocked; i += vector_block)
    for (std::size_t k = 0; k < vector_block; ++k) f(i + k);
  for (std::size_t i = blocked; i < n; ++i) f(i);
}

}  // namespace costdsl::detail
