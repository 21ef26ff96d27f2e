// gpt-oss-20b declared statically with 23 layers: its repeated unit is the (sliding-window,
// full attention) layer pair, so an odd layer count must not compile; the 24-layer
// control (the published model) does.
#include "costdsl/archs/gpt_oss.hpp"
using namespace costdsl::archs;
constexpr GptOssConfig with_layers(std::uint32_t n) {
  GptOssConfig c = gpt_oss_20b;
  c.num_layers = n;
  return c;
}
#ifdef COSTDSL_CONTROL
using Arch = GptOss<costdsl::Fixed<with_layers(24)>>;
#else
using Arch = GptOss<costdsl::Fixed<with_layers(23)>>;
#endif
int main() { return Arch().resolved().dp > 0 ? 0 : 1; }
