// Llama-4 Maverick declared statically with a dense MLP 16,380 wide at TP 8: its dense layers
// split that width tp ways, so a width tp does not divide must not compile; the published
// 16,384 (the control) does.
#include "costdsl/archs/llama4.hpp"
using namespace costdsl::archs;
constexpr Llama4MaverickConfig with_dense_width(std::uint32_t n) {
  Llama4MaverickConfig c = deploy(llama4_maverick, {.tp = 8, .ep = 8});
  c.intermediate = n;
  return c;
}
#ifdef COSTDSL_CONTROL
using Arch = Llama4<costdsl::Fixed<with_dense_width(16384)>>;
#else
using Arch = Llama4<costdsl::Fixed<with_dense_width(16380)>>;
#endif
int main() { return Arch().resolved().dp > 0 ? 0 : 1; }
