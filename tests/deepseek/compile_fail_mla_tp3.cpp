// tp 3 does not divide DeepSeek-V3's 128 attention heads (MLA splits heads, never a head).
#include "costdsl/archs/deepseek_v3.hpp"
using namespace costdsl::archs;
#ifdef COSTDSL_CONTROL
using Arch = DeepseekV3<costdsl::Fixed<deepseek_v3.with_parallel(8, 8)>>;
#else
using Arch = DeepseekV3<costdsl::Fixed<deepseek_v3.with_parallel(3, 3)>>;
#endif
int main() { return Arch().kv_bytes_per_token() > 0 ? 0 : 1; }
