// Qwen3-235B-A22B at attention TP 4, EP 8 (two DP groups): built, inputs, one iteration.
#include "costdsl/archs/qwen3_moe.hpp"
#include "costdsl/core.hpp"
using namespace costdsl;
using namespace costdsl::archs;

double iteration_ms(const Timing& timing) {
  const Qwen3Moe<Fixed<deploy(qwen3_235b_a22b, {.tp = 4, .ep = 8})>> arch;
  const auto tree = arch.build(timing);
  const std::vector<ops::PrefillChunk> prefill{{0, 4096}};
  const std::vector<std::uint32_t> decode(32, 2048);
  const ops::AttentionBatch groups[2] = {{prefill, decode}, {{}, decode}};
  return evaluate(tree, arch.inputs({groups, {}})).time_ms();
}
