#include "common.hpp"
using namespace cf;
int main() {
#ifdef COSTDSL_CONTROL
  using L = Static<32>;
#else
  using L = Static<0>;
#endif
  auto tree = scale(L{}, leaf<"layer">(AffineKernel{1, 1, 1}));
  return evaluate(tree, inputs(input<"layer">(TokensInput{1}))).time_s > 0 ? 0 : 1;
}
