// Mixtral declared statically with ep 3: 3 does not divide its 8 experts, so the arch
// must not compile (on a tiny config of the family: 8 experts, top-2, 2 layers).
#include "costdsl/archs/mixtral.hpp"
using namespace costdsl::archs;
inline constexpr MixtralConfig tiny{256, 4, 2, 64, 512, 8, 2, 1024, 2, 1, 1, costdsl::Dtype::bf16,
                                    costdsl::Dtype::bf16};
#ifdef COSTDSL_CONTROL
using Arch = Mixtral<costdsl::Fixed<tiny.with_parallel(1, 4)>>;
#else
using Arch = Mixtral<costdsl::Fixed<tiny.with_parallel(1, 3)>>;
#endif
int main() { return Arch().resolved().dp > 0 ? 0 : 1; }
