// A simulator's arch translation unit: Llama-3-70B at TP 8 built (static dims), its
// inputs made, one iteration evaluated. The Timing comes from elsewhere (loaders live
// in their own translation unit or in libcostdsl).
#include "costdsl/archs/llama3.hpp"
#include "costdsl/core.hpp"
using namespace costdsl;
using namespace costdsl::archs;

double iteration_ms(const Timing& timing) {
  const Llama3<Fixed<deploy(llama3_70b, {.tp = 8})>> arch;
  const auto tree = arch.build(timing);
  const std::vector<ops::PrefillChunk> prefill{{0, 4096}};
  const std::vector<std::uint32_t> decode(64, 2048);
  return evaluate(tree, arch.inputs({prefill, decode})).time_ms();
}
