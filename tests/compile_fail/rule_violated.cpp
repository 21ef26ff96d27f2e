// No KV-head replication: tp may not exceed the KV heads.
#include "costdsl/dim_expr.hpp"
using namespace costdsl;
int main() {
  constexpr auto num_kv_heads = sym<"num_kv_heads">(Static<2>{});
#ifdef COSTDSL_CONTROL
  constexpr auto tp = sym<"tp">(Static<2>{});
#else
  constexpr auto tp = sym<"tp">(Static<4>{});
#endif
  require_le<"tp may not exceed num_kv_heads">(tp, num_kv_heads);
  return 0;
}
