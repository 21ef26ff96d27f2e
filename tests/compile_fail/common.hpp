#pragma once
// Shared by the compile-fail cases: a tiny tree with two slots of the same kernel type.
#include "../core/test_kernel.hpp"
#include "costdsl/evaluate.hpp"
#include "costdsl/when.hpp"

namespace cf {
using namespace costdsl;
using namespace costdsl::testing;

inline auto two_slot_tree() {
  return labeled<"attn">("attn", sum(leaf<"qkv_proj">(AffineKernel{1, 1, 1}), leaf<"o_proj">(AffineKernel{2, 1, 1}),
                                     leaf<"norm">(RowsKernel{})));
}
}  // namespace cf
