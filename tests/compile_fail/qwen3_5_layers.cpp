// Qwen3.5-397B-A17B declared statically with 62 layers: its repeated unit is the quad of 3
// Gated DeltaNet layers and 1 full-attention layer, so a layer count off a multiple of 4
// must not compile; the 60-layer control (the published model) does.
#include "costdsl/archs/qwen3_5.hpp"
using namespace costdsl::archs;
constexpr Qwen3_5Config with_layers(std::uint32_t n) {
  Qwen3_5Config c = deploy(qwen3_5_397b_a17b, {.tp = 4, .ep = 8});
  c.num_layers = n;
  return c;
}
#ifdef COSTDSL_CONTROL
using Arch = Qwen3_5<costdsl::Fixed<with_layers(60)>>;
#else
using Arch = Qwen3_5<costdsl::Fixed<with_layers(62)>>;
#endif
int main() { return Arch().resolved().dp > 0 ? 0 : 1; }
