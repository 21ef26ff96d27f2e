// tp 3 does not divide 32 query heads: the attention worklet alone, on the smallest
// config that shows the rule (a whole arch only adds parse time).
#include <cstdint>

#include "costdsl/fields.hpp"
#include "costdsl/worklets/attn_block_tp.hpp"
using namespace costdsl;

struct Attn {
  COSTDSL_FIELDS((std::uint32_t, hidden), (std::uint32_t, num_qo_heads), (std::uint32_t, num_kv_heads),
                 (std::uint32_t, head_dim), (std::uint32_t, tp), (Dtype, dtype), (Dtype, kv_dtype));
};
#ifdef COSTDSL_CONTROL
inline constexpr Attn attn{4096, 32, 8, 128, 2, Dtype::bf16, Dtype::bf16};
#else
inline constexpr Attn attn{4096, 32, 8, 128, 3, Dtype::bf16, Dtype::bf16};
#endif
int main() { return worklets::AttnBlockTp<Fixed<attn>>(Fixed<attn>{}).resolved().qkv_n.value() > 0 ? 0 : 1; }
