// Llama-3-8B declared statically at TP 16: 16 > 8 KV heads must not compile (the one
// compile-fail case through a whole arch: the rule reaches users at the arch level).
#include "costdsl/archs/llama3.hpp"
using namespace costdsl::archs;
#ifdef COSTDSL_CONTROL
using Arch = Llama3<costdsl::Fixed<deploy(llama3_8b, {.tp = 8})>>;
#else
using Arch = Llama3<costdsl::Fixed<deploy(llama3_8b, {.tp = 16})>>;
#endif
int main() { return Arch().kv_bytes_per_token() > 0 ? 0 : 1; }
