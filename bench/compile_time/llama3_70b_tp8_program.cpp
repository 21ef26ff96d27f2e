// The one-TU program, header-only: the Llama-3-70B TU plus loading the shipped data
// (GPU catalog, roofline parameters, profile tables) in the same translation unit.
#include "costdsl/archs/llama3.hpp"
#include "costdsl/core.hpp"
#include "costdsl/load_timing.hpp"
using namespace costdsl;
using namespace costdsl::archs;

int main() {
  const Llama3<Fixed<deploy(llama3_70b, {.tp = 8})>> arch;
  const auto tree = arch.build(load_timing("h200", TimingMode::roofline));
  const std::vector<ops::PrefillChunk> prefill{{0, 4096}};
  const std::vector<std::uint32_t> decode(64, 2048);
  return evaluate(tree, arch.inputs({prefill, decode})).time_s > 0 ? 0 : 1;
}
