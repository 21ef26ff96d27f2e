// Qwen3-235B-A22B declared statically at ep 48: 48 does not divide 128 experts, must not compile.
#include "costdsl/archs/qwen3_moe.hpp"
using namespace costdsl::archs;
#ifdef COSTDSL_CONTROL
using Arch = Qwen3Moe<costdsl::Fixed<qwen3_235b_a22b.with_parallel(4, 32)>>;
#else
using Arch = Qwen3Moe<costdsl::Fixed<qwen3_235b_a22b.with_parallel(4, 48)>>;
#endif
int main() { return Arch().kv_bytes_per_token() > 0 ? 0 : 1; }
