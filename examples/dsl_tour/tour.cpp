// The README's "DSL in 20 lines", compiled and run by the test suite: the lines between
// the tour markers are the README's snippet, character for character
// (examples/dsl_tour/check_readme.py). Only the core header and your own kernel.
#include <cstdio>
#include <string>
#include <vector>

// [tour]
#include <costdsl/config_field.hpp>  // what a kernel's config_fields() returns
#include <costdsl/core.hpp>
using namespace costdsl;
using namespace costdsl::literals;

struct Tokens { double count = 0; };
struct PerToken {  // a kernel of your own: a kind, an Input, eval() and its identity
  static constexpr std::string_view kind = "per_token";
  using Input = Tokens;
  double seconds_per_token = 0;
  Metrics eval(const Input& in) const { return {seconds_per_token * in.count, 0, 0}; }
  std::vector<ConfigField> config_fields() const { return {{"s_per_token", seconds_per_token}}; }
  std::vector<std::string> backends() const { return {"formula"}; }
};

constexpr auto qo = sym<"num_qo_heads">(Static<64>{});
constexpr auto kv = sym<"num_kv_heads">(Static<8>{});
constexpr auto head_dim = sym<"head_dim">(Static<128>{});
constexpr auto tp = sym<"tp">(Static<8>{});
constexpr auto qkv_n = (qo / tp + 2_c * (kv / tp)) * head_dim;  // tp 16 would not compile
static_assert(qkv_n.value() == 1280);

const auto tree = labeled<"model">("Llama-3-70B [tp=8]",
    sum(leaf<"embed">(PerToken{1e-9}),
        labeled<"layer">("layer", scale(Static<80>{}, sum(leaf<"attn">(PerToken{2e-8}),
                                                          leaf<"mlp">(PerToken{4e-8}))))));
static_assert(n_slots<decltype(tree)> == 3);  // a Scale subtree counts once

double iteration_ms(double tokens) {  // reordered or missing inputs do not compile
  return evaluate(tree, inputs(input<"model.embed">(Tokens{tokens}),
                               input<"model.layer.attn">(Tokens{tokens}),
                               input<"model.layer.mlp">(Tokens{tokens}))).time_ms();
}
// [tour]

int main() {
  // 4096 tokens: 1e-9 + 80 × (2e-8 + 4e-8) seconds per token.
  const double got = iteration_ms(4096), want = 4096 * (1e-9 + 80 * 6e-8) * 1e3;
  std::printf("one iteration of 4096 tokens: %.6f ms (expected %.6f)\n", got, want);
  return got > want * (1 - 1e-12) && got < want * (1 + 1e-12) ? 0 : 1;
}
