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

// COSTDSL_FIELDS: members in declaration order, visited by name at compile time, and
// dim<"name">(form) reading the same field from a Fixed form as a static dim.
namespace reflection {
struct Shape {
  COSTDSL_FIELDS((std::uint32_t, num_kv_heads), (Dtype, dtype), (std::uint32_t, tp), (bool, replicate));
};
constexpr Shape shape{8, Dtype::fp8, 4, true};
constexpr std::size_t count_fields() {
  std::size_t n = 0;
  for_each_field(shape, [&](std::string_view, const auto&) { ++n; });
  return n;
}
constexpr bool names_in_order() {
  constexpr std::string_view expected[] = {"num_kv_heads", "dtype", "tp", "replicate"};
  std::size_t i = 0;
  bool ok = true;
  for_each_field(shape, [&](std::string_view name, const auto&) { ok = ok && name == expected[i++]; });
  return ok;
}
static_assert(count_fields() == 4);
static_assert(names_in_order());
struct PlainShape {  // the same members written out: the macro adds no data
  std::uint32_t num_kv_heads;
  Dtype dtype;
  std::uint32_t tp;
  bool replicate;
};
static_assert(std::is_aggregate_v<Shape> && sizeof(Shape) == sizeof(PlainShape));
static_assert(Shape{.num_kv_heads = 1, .dtype = Dtype::bf16, .tp = 2, .replicate = false}.tp == 2);  // designated initializers, as for any aggregate
constexpr auto static_tp = dim<"tp">(Fixed<shape>{});
static_assert(decltype(static_tp)::is_static && static_tp.value() == 4);
static_assert(dim<"num_kv_heads">(Fixed<shape>{}).value() == 8);
static_assert(dim<"replicate">(Fixed<shape>{}).value() == 1);  // a bool field reads as 0 / 1
static_assert(!decltype(dim<"tp">(shape))::is_static);
}  // namespace reflection
