// Qwen3-30B-A3B at attention TP 1, EP 8 (eight DP groups): built, inputs, one iteration.
#include "costdsl/archs/qwen3_moe.hpp"
#include "costdsl/core.hpp"
using namespace costdsl;
using namespace costdsl::archs;

double iteration_ms(const Timing& timing) {
  const Qwen3Moe<Fixed<deploy(qwen3_30b_a3b, {.tp = 1, .ep = 8})>> arch;
  const auto tree = arch.build(timing);
  const std::vector<ops::PrefillChunk> prefill{{0, 4096}};
  const std::vector<std::uint32_t> decode(8, 2048);
  const ops::AttentionBatch groups[8] = {{prefill, decode}, {{}, decode}, {{}, decode}, {{}, decode},
                                         {{}, decode},      {{}, decode}, {{}, decode}, {{}, decode}};
  return evaluate(tree, arch.inputs({groups, {}})).time_ms();
}
