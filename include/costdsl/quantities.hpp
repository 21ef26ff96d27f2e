#pragma once
// Which quantities an evaluation computes. A simulator asks for time and work every
// iteration; energy costs a second table query (or a roofline estimate) per leaf and is
// wanted only by reports, so it is computed only when asked for:
//
//   evaluate(tree, in)                                   // time, flops, bytes: energy_j = 0
//   evaluate<Quantities::with_energy>(tree, in, row)     // and energy, as `costdsl eval` prints
//
// A slot kernel opts in by offering `template <Quantities Q> Metrics eval(const Input&)`;
// one with only `eval(in)` is called as before and its energy kept.
#include <cstdint>

namespace costdsl {

enum class Quantities : std::uint8_t {
  time_and_work,  // time, flops, bytes, coverage, backend
  with_energy,    // and energy_j
};

}  // namespace costdsl
