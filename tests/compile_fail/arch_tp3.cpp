// tp 3 does not divide Llama-3-8B's 32 query heads.
#include "costdsl/archs/llama3.hpp"
using namespace costdsl::archs;
#ifdef COSTDSL_CONTROL
using Arch = Llama3<costdsl::Fixed<llama3_8b.with_tp(2)>>;
#else
using Arch = Llama3<costdsl::Fixed<llama3_8b.with_tp(3)>>;
#endif
int main() { return Arch().kv_bytes_per_token() > 0 ? 0 : 1; }
