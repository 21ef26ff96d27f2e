// Llama-3-8B has 8 KV heads: tp = 16 must not compile.
#include "costdsl/dim_expr.hpp"
using namespace costdsl;
int main() {
  constexpr auto num_kv_heads = sym<"num_kv_heads">(Static<8>{});
#ifdef COSTDSL_CONTROL
  constexpr auto tp = sym<"tp">(Static<4>{});
#else
  constexpr auto tp = sym<"tp">(Static<16>{});
#endif
  constexpr auto kv_per_rank = num_kv_heads / tp;
  return static_cast<int>(kv_per_rank.value()) - 2;
}
