// Mixtral declared statically with ep 3: 3 does not divide its 8 experts, so the arch
// must not compile (on a tiny config of the family: 8 experts, top-2, 2 layers).
#include "costdsl/archs/mixtral.hpp"
using namespace costdsl::archs;
inline constexpr MixtralShape tiny{.hidden = 256, .num_qo_heads = 4, .num_kv_heads = 2, .head_dim = 64,
                                   .moe_intermediate = 512, .num_experts = 8, .top_k = 2, .vocab = 1024,
                                   .num_layers = 2, .dtype = costdsl::Dtype::bf16};
#ifdef COSTDSL_CONTROL
using Arch = Mixtral<costdsl::Fixed<deploy(tiny, {.tp = 1, .ep = 4})>>;
#else
using Arch = Mixtral<costdsl::Fixed<deploy(tiny, {.tp = 1, .ep = 3})>>;
#endif
int main() { return Arch().resolved().dp > 0 ? 0 : 1; }
