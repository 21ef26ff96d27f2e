#include "common.hpp"
using namespace cf;
int main() {
#ifdef COSTDSL_CONTROL
  using O = Ratio<9, 10>;
#else
  using O = Ratio<3, 2>;
#endif
  auto tree = parallel(O{}, leaf<"routed">(AffineKernel{1, 1, 1}), leaf<"shared">(AffineKernel{1, 1, 1}));
  return evaluate(tree, inputs(input<"routed">(TokensInput{1}), input<"shared">(TokensInput{1}))).time_s > 0 ? 0 : 1;
}
