#include "costdsl/dim_expr.hpp"
using namespace costdsl;
int main() {
#ifdef COSTDSL_CONTROL
  constexpr auto tokens = sym<"tokens">(Static<65536>{});
#else
  constexpr auto tokens = sym<"tokens">(Static<1048576>{});
#endif
  constexpr auto vocab = sym<"vocab">(Static<32768>{});
  constexpr auto logits = tokens * vocab;
  return logits.value() > 0 ? 0 : 1;
}
