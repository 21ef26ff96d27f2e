// DeepSeek-V3 declared statically at ep 8 × hp 3: under hp the DP attention groups are hp
// GPUs each (dp = ep / hp), so hp must divide ep, and the rule names both. The control is hp 2.
#include "costdsl/archs/deepseek_v3.hpp"
using namespace costdsl::archs;
#ifdef COSTDSL_CONTROL
using Arch = DeepseekV3<costdsl::Fixed<deploy(deepseek_v3, {.tp = 1, .ep = 8, .hp = 2})>>;
#else
using Arch = DeepseekV3<costdsl::Fixed<deploy(deepseek_v3, {.tp = 1, .ep = 8, .hp = 3})>>;
#endif
int main() { return Arch().kv_bytes_per_token() > 0 ? 0 : 1; }
