// ep 48 does not divide 128 experts: the expert worklet alone, on the smallest config
// that shows the rule.
#include <cstdint>

#include "costdsl/fields.hpp"
#include "costdsl/worklets/moe_expert_ep.hpp"
using namespace costdsl;

struct Experts {
  COSTDSL_FIELDS((std::uint32_t, hidden), (std::uint32_t, moe_intermediate),
                 (std::uint32_t, num_experts), (std::uint32_t, top_k), (std::uint32_t, ep), (Dtype, dtype));
};
#ifdef COSTDSL_CONTROL
inline constexpr Experts experts{4096, 1536, 128, 8, 32, Dtype::bf16};
#else
inline constexpr Experts experts{4096, 1536, 128, 8, 48, Dtype::bf16};
#endif
int main() { return worklets::MoeExpertEp<Fixed<experts>>(Fixed<experts>{}).resolved().ep.value() > 0 ? 0 : 1; }
