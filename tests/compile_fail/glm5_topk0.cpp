// GLM-5 declared statically with an indexer that selects no token (index_topk 0): sparse
// attention would attend to nothing, so it must not compile (the attention block checks the
// frame's DsaForm); the published 2048 (the control) does.
#include "costdsl/archs/glm5.hpp"
using namespace costdsl::archs;
constexpr Glm5Config with_topk(std::uint32_t k) {
  Glm5Config c = deploy(glm5, {.tp = 8, .ep = 8});
  c.indexer.index_topk = k;
  return c;
}
#ifdef COSTDSL_CONTROL
using Arch = Glm5<costdsl::Fixed<with_topk(2048)>>;
#else
using Arch = Glm5<costdsl::Fixed<with_topk(0)>>;
#endif
int main() { return Arch().resolved().dp > 0 ? 0 : 1; }
