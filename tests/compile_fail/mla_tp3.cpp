// tp 3 does not divide 128 attention heads (MLA splits heads, never a head): the MLA
// worklet alone, on DeepSeek-V3's attention shape.
#include <cstdint>

#include "costdsl/fields.hpp"
#include "costdsl/worklets/mla_block_tp.hpp"
using namespace costdsl;

struct Mla {
  COSTDSL_FIELDS((std::uint32_t, hidden), (std::uint32_t, num_heads), (std::uint32_t, q_lora_rank),
                 (std::uint32_t, kv_lora_rank), (std::uint32_t, qk_nope_head_dim),
                 (std::uint32_t, qk_rope_head_dim), (std::uint32_t, v_head_dim), (std::uint32_t, tp),
                 (Dtype, dtype), (Dtype, kv_dtype));
};
#ifdef COSTDSL_CONTROL
inline constexpr Mla mla{7168, 128, 1536, 512, 128, 64, 128, 8, Dtype::bf16, Dtype::bf16};
#else
inline constexpr Mla mla{7168, 128, 1536, 512, 128, 64, 128, 3, Dtype::bf16, Dtype::bf16};
#endif
int main() { return worklets::MlaBlockTp<Fixed<mla>>(Fixed<mla>{}).resolved().tp.value() > 0 ? 0 : 1; }
