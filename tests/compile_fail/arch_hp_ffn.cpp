// A Llama declared statically at tp 8 × hp 4 whose FFN (intermediate 14000) the 32 GPUs
// cannot split: under hp the FFN runs TP over hp × tp, and the rule names both degrees.
// The control is Llama-3-8B's own 14336 (= 32 × 448).
#include "costdsl/archs/llama3.hpp"
using namespace costdsl::archs;
constexpr Llama3Config with_ffn(std::uint32_t intermediate) {
  Llama3Config c = deploy(llama3_8b, {.tp = 8, .hp = 4});
  c.intermediate = intermediate;
  return c;
}
#ifdef COSTDSL_CONTROL
using Arch = Llama3<costdsl::Fixed<with_ffn(14336)>>;
#else
using Arch = Llama3<costdsl::Fixed<with_ffn(14000)>>;
#endif
int main() { return Arch().kv_bytes_per_token() > 0 ? 0 : 1; }
