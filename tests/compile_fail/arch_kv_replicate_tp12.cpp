// A Llama declared statically at tp 12 with KV-head replication: each of the 8 KV heads
// must be copied to whole ranks, so num_kv_heads must divide tp. The control is tp 16
// (each head on 2 GPUs).
#include "costdsl/archs/llama3.hpp"
using namespace costdsl::archs;
#ifdef COSTDSL_CONTROL
using Arch = Llama3<costdsl::Fixed<deploy(llama3_70b, {.tp = 16, .kv_replicate = true})>>;
#else
using Arch = Llama3<costdsl::Fixed<deploy(llama3_70b, {.tp = 12, .kv_replicate = true})>>;
#endif
int main() { return Arch().kv_bytes_per_token() > 0 ? 0 : 1; }
