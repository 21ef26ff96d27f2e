#pragma once
// eval_slot<Q>(kernel, in): one slot kernel's metrics for quantities Q. A kernel that
// takes the quantities as a template argument (Kernel<K>, the wrappers over it) is
// asked for exactly those; one with only `eval(in)` (a user's kernel, a slot written
// before quantities existed) is called as it is and answers what it always did.
// Wrapper slots forward Q to the kernel they wrap through this.
//
// F: how a slot that folds ranks itself (ops::RankFolded: EP ranks, hp ranks) folds their
// times; the balanced view asks for RankFold::mean. Any other slot has no ranks and is
// asked as it always is.
#include "costdsl/concepts.hpp"
#include "costdsl/detail/inline.hpp"
#include "costdsl/metrics.hpp"
#include "costdsl/quantities.hpp"

namespace costdsl {

template <Quantities Q, RankFold F = RankFold::max, class K, class In>
COSTDSL_INLINE Metrics eval_slot(const K& kernel, const In& in) {
  if constexpr (F != RankFold::max && requires { kernel.template eval<Q, F>(in); }) {
    return kernel.template eval<Q, F>(in);
  } else if constexpr (requires { kernel.template eval<Q>(in); }) {
    return kernel.template eval<Q>(in);
  } else {
    return kernel.eval(in);
  }
}

}  // namespace costdsl
