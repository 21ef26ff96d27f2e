#include "common.hpp"
using namespace cf;
int main() {
  auto tree = two_slot_tree();
#ifdef COSTDSL_CONTROL
  auto in = nest<"attn">(inputs(input<"qkv_proj">(TokensInput{4}), input<"o_proj">(TokensInput{4}),
                                input<"norm">(RowsInput{4})));
#else
  auto in = nest<"attn">(inputs(input<"qkv_proj">(TokensInput{4}), input<"o_proj">(TokensInput{4})));
#endif
  return evaluate(tree, in).time_s > 0 ? 0 : 1;
}
