// Two dp ranks of the same subtree must carry distinct Labeled names.
#include "common.hpp"
using namespace cf;
int main() {
  auto rank = [] { return leaf<"attn">(AffineKernel{1, 1, 1}); };
#ifdef COSTDSL_CONTROL
  auto tree = max_over(labeled<"dp0">("dp 0", rank()), labeled<"dp1">("dp 1", rank()));
  auto in = inputs(input<"dp0.attn">(TokensInput{1}), input<"dp1.attn">(TokensInput{2}));
#else
  auto tree = max_over(labeled<"dp">("dp 0", rank()), labeled<"dp">("dp 1", rank()));
  auto in = inputs(input<"dp.attn">(TokensInput{1}), input<"dp.attn">(TokensInput{2}));
#endif
  return evaluate(tree, in).time_s > 0 ? 0 : 1;
}
