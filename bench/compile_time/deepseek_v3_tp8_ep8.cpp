// DeepSeek-V3 at MLA TP 8, EP 8 (one DP group): built, inputs, one iteration.
#include "costdsl/archs/deepseek_v3.hpp"
#include "costdsl/core.hpp"
using namespace costdsl;
using namespace costdsl::archs;

double iteration_ms(const Timing& timing) {
  const DeepseekV3<Fixed<deploy(deepseek_v3, {.tp = 8, .ep = 8})>> arch;
  const auto tree = arch.build(timing);
  const std::vector<ops::PrefillChunk> prefill{{0, 4096}};
  const std::vector<std::uint32_t> decode(64, 2048);
  const ops::AttentionBatch groups[1] = {{prefill, decode}};
  return evaluate(tree, arch.inputs({groups, {}})).time_ms();
}
