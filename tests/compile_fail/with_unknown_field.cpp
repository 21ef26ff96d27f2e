// with<"name">(config, value) on a name that is no field of the config: a deployed Llama
// has tp (its Parallelism's) but no tp_size, so setting it must not compile; the control
// sets tp.
#include "costdsl/archs/llama3.hpp"
#include "costdsl/with.hpp"
using namespace costdsl::archs;
#ifdef COSTDSL_CONTROL
inline constexpr Llama3Config c = costdsl::with<"tp">(deploy(llama3_8b), 2u);
#else
inline constexpr Llama3Config c = costdsl::with<"tp_size">(deploy(llama3_8b), 2u);
#endif
int main() { return c.tp == 2 ? 0 : 1; }
