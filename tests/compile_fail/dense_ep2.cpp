// One Parallelism serves every frame, and a frame refuses the degrees it has no grain for:
// a dense Llama deployed with ep 2 has no experts to place, so it must not compile; the
// control deploys it at tp 2.
#include "costdsl/archs/llama3.hpp"
using namespace costdsl::archs;
#ifdef COSTDSL_CONTROL
using Arch = Llama3<costdsl::Fixed<deploy(llama3_8b, {.tp = 2})>>;
#else
using Arch = Llama3<costdsl::Fixed<deploy(llama3_8b, {.tp = 2, .ep = 2})>>;
#endif
int main() { return Arch().kv_bytes_per_token() > 0 ? 0 : 1; }
