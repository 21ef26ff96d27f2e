// Llama-3-70B declared statically at TP 16: 16 > 8 KV heads must not compile.
#include "costdsl/archs/llama3.hpp"
using namespace costdsl::archs;
#ifdef COSTDSL_CONTROL
using Arch = Llama3<costdsl::Fixed<llama3_70b.with_tp(8)>>;
#else
using Arch = Llama3<costdsl::Fixed<llama3_70b.with_tp(16)>>;
#endif
int main() { return Arch().kv_bytes_per_token() > 0 ? 0 : 1; }
