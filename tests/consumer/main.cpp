// A small tree of user-defined kernels built on the core alone.
#include <costdsl/config_field.hpp>
#include <costdsl/core.hpp>

#include <cstdio>

namespace {
struct FixedCost {
  static constexpr std::string_view kind = "fixed";
  struct Input {
    unsigned tokens;
  };
  double per_token_s;
  costdsl::Metrics eval(const Input& in) const { return {per_token_s * in.tokens, 2.0 * in.tokens, 0, 0, {}, 0}; }
  std::vector<costdsl::ConfigField> config_fields() const { return {{"per_token_s", per_token_s}}; }
  std::vector<std::string> backends() const { return {"none"}; }
};
}  // namespace

int main() {
  using namespace costdsl;
  auto tree = sum(leaf<"a">(FixedCost{1e-6}), scale(Static<3>{}, sum(leaf<"b">(FixedCost{2e-6}), leaf<"c">(FixedCost{3e-6}))));
  static_assert(n_slots<decltype(tree)> == 3);
  const Metrics m = evaluate(tree, inputs(input<"a">(FixedCost::Input{10}), input<"b">(FixedCost::Input{10}),
                                          input<"c">(FixedCost::Input{10})));
  std::printf("total %.1f us over %zu slots\n", m.time_s * 1e6, n_slots<decltype(tree)>);
  return m.time_s == (10 + 3 * 50) * 1e-6 ? 0 : 1;
}
