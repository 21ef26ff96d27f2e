// Qwen3-MoE declared statically with TP experts (ep 1 over tp 3): 3 does not divide the
// experts' moe_intermediate 512, so the arch must not compile. The heads (6 query, 3 KV)
// split 3 ways, so the experts' width is the rule that fails (a tiny config of the family);
// the control's 768 splits.
#include "costdsl/archs/qwen3_moe.hpp"
using namespace costdsl::archs;
using costdsl::Dtype;
#ifdef COSTDSL_CONTROL
inline constexpr std::uint32_t width = 768;
#else
inline constexpr std::uint32_t width = 512;
#endif
inline constexpr Qwen3MoeShape tiny{.hidden = 256, .num_qo_heads = 6, .num_kv_heads = 3, .head_dim = 64,
                                    .moe_intermediate = width, .num_experts = 8, .top_k = 2, .vocab = 1024,
                                    .num_layers = 2, .dtype = Dtype::bf16};
using Arch = Qwen3Moe<costdsl::Fixed<deploy(tiny, {.tp = 3, .ep = 1})>>;  // ep 1 over tp 3 picks ExpertGrain::tp
int main() { return Arch().resolved().dp > 0 ? 0 : 1; }
