// Pure compile-time tests: if this file compiles, they pass.
#include "../core/test_kernel.hpp"
#include "costdsl/costdsl.hpp"

using namespace costdsl;
using namespace costdsl::literals;
using costdsl::testing::AffineKernel;
using costdsl::testing::TokensInput;

// Reference shapes: Llama-3-8B at tp = 4 (qo 32, kv 8, head_dim 128).
constexpr auto num_qo_heads = sym<"num_qo_heads">(Static<32>{});
constexpr auto num_kv_heads = sym<"num_kv_heads">(Static<8>{});
constexpr auto head_dim = sym<"head_dim">(Static<128>{});
constexpr auto tp = sym<"tp">(Static<4>{});
constexpr auto qkv_n = (num_qo_heads / tp + 2_c * (num_kv_heads / tp)) * head_dim;
constexpr auto o_proj_k = num_qo_heads / tp * head_dim;
static_assert(qkv_n.value() == 1536);
static_assert(o_proj_k.value() == 1024);
static_assert(decltype(qkv_n)::is_static);
static_assert(formula_v<decltype(qkv_n)> == FixedString("(num_qo_heads/tp+2*num_kv_heads/tp)*head_dim"));
static_assert(formula_v<decltype(head_dim - (num_qo_heads - tp))> == FixedString("head_dim-(num_qo_heads-tp)"));
static_assert(formula_v<decltype(head_dim / (tp / 2_c))> == FixedString("head_dim/(tp/2)"));
static_assert(!decltype(num_kv_heads / sym<"tp">(4u))::is_static);

// The worked example: Sum(a, Scale<3>(Sum(b, c)), d) has 4 slots.
using K = AffineKernel;
using Worked = Sum<Leaf<"a", K>, Scale<Static<3>, Sum<Leaf<"b", K>, Leaf<"c", K>>>, Leaf<"d", K>>;
static_assert(n_slots<Worked> == 4);
static_assert(slot_paths<Worked>[0] == "a" && slot_paths<Worked>[3] == "d");

// Labeled names become path segments; a Scale subtree counts once, however large n.
using Model = Labeled<"model", Sum<Leaf<"embed", K>,
                                   Labeled<"layer", Scale<Static<126>, Sum<Leaf<"attn", K>, Leaf<"mlp", K>>>>>>;
static_assert(n_slots<Model> == 3);
static_assert(slot_paths<Model>[1] == "model.layer.attn");
static_assert(slot_paths<Model>[2] == "model.layer.mlp");

// A statically false condition removes the slot from the type; a true one keeps it.
constexpr auto with_allreduce(auto cond) {
  return sum(leaf<"o_proj">(K{}), when(cond, leaf<"tp_allreduce">(K{})));
}
static_assert(n_slots<decltype(with_allreduce(std::false_type{}))> == 1);
static_assert(n_slots<decltype(with_allreduce(std::true_type{}))> == 2);
static_assert(n_slots<decltype(with_allreduce(Static<0>{}))> == 1);
// A run-time condition keeps the shape fixed (INV-1).
static_assert(std::is_same_v<decltype(with_allreduce(true)), decltype(with_allreduce(false))>);
static_assert(n_slots<decltype(with_allreduce(true))> == 2);

// Child offsets are what the fold indexes inputs with.
static_assert(detail::child_offsets<Worked>[1] == 1 && detail::child_offsets<Worked>[2] == 3);

// Static nodes add no storage for static counts and ratios.
static_assert(sizeof(Scale<Static<32>, Leaf<"x", K>>) == sizeof(Leaf<"x", K>));

int main() { return 0; }
