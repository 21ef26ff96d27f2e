// A worklet whose inputs() lists two slots in the other order than build() makes them:
// WorkletDef requires its inputs to follow its slots (INV-2), so the contract fails where
// the worklet is declared, before any arch evaluates it.
#include "common.hpp"
#include "costdsl/worklet_def.hpp"
using namespace cf;

struct Form {};

class TwoProjections {
 public:
  struct Input {
    std::uint32_t tokens = 0;
  };
  explicit TwoProjections(const Form&) {}
  static constexpr int resolve_config(const Form&) { return 0; }
  int resolved() const { return 0; }
  auto build(const Timing&) const { return two_slot_tree(); }
  auto inputs(const Input& in) const {
#ifdef COSTDSL_CONTROL
    return nest<"attn">(costdsl::inputs(input<"qkv_proj">(TokensInput{in.tokens}), input<"o_proj">(TokensInput{in.tokens}),
                                        input<"norm">(RowsInput{in.tokens})));
#else
    return nest<"attn">(costdsl::inputs(input<"o_proj">(TokensInput{in.tokens}), input<"qkv_proj">(TokensInput{in.tokens}),
                                        input<"norm">(RowsInput{in.tokens})));
#endif
  }
};

static_assert(WorkletDef<TwoProjections, Form>, "costdsl: TwoProjections is not a WorkletDef");
int main() {}
