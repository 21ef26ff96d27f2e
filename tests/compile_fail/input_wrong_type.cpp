#include "common.hpp"
using namespace cf;
int main() {
  auto tree = two_slot_tree();
#ifdef COSTDSL_CONTROL
  auto norm_in = RowsInput{4};
#else
  auto norm_in = TokensInput{4};
#endif
  auto in = nest<"attn">(
      inputs(input<"qkv_proj">(TokensInput{4}), input<"o_proj">(TokensInput{4}), input<"norm">(norm_in)));
  return evaluate(tree, in).time_s > 0 ? 0 : 1;
}
