// The core alone: a three-leaf tree of user-defined kernels, evaluated.
#include <string>
#include <string_view>
#include <vector>

#include "costdsl/config_field.hpp"
#include "costdsl/core.hpp"
using namespace costdsl;

struct Tokens {
  double count = 0;
};
struct Linear {
  static constexpr std::string_view kind = "linear";
  using Input = Tokens;
  double per_token_s = 0;
  Metrics eval(const Input& in) const { return {per_token_s * in.count, 2 * in.count, 4 * in.count}; }
  std::vector<ConfigField> config_fields() const { return {{"per_token_s", per_token_s}}; }
  std::vector<std::string> backends() const { return {"formula"}; }
};

double iteration_ms(double tokens) {
  const auto tree = sum(leaf<"norm">(Linear{1e-9}), scale(Static<32>{}, labeled<"layer">("layer", sum(leaf<"gemm">(Linear{4e-8})))),
                        leaf<"head">(Linear{2e-8}));
  const auto in = inputs(input<"norm">(Tokens{tokens}), input<"layer.gemm">(Tokens{tokens}),
                         input<"head">(Tokens{tokens}));
  return evaluate(tree, in).time_ms();
}
