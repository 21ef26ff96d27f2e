// Fuzzes config.json to a model: the strict HfConfig reader, each family's from_hf,
// the run-time arch's partition checks and build, and one iteration's evaluation.
// Byte 0 picks the family (bits 0-1: llama, qwen3_moe, deepseek_v3) and the degrees
// (tp = 2^bits 2-3, ep = tp · 2^bits 4-5); the rest is the file.
#include <string_view>
#include <vector>

#include "costdsl/costdsl.hpp"
#include "costdsl/archs/deepseek_v3.hpp"
#include "costdsl/archs/llama3.hpp"
#include "costdsl/archs/support/batch_feed.hpp"
#include "costdsl/archs/qwen3_moe.hpp"
#include "costdsl/hf_config.hpp"
#include "fuzz_target.hpp"

namespace {
using namespace costdsl;

const Timing& roofline() {
  static const Timing t = load_timing("h200", TimingMode::roofline);
  return t;
}

// One prefill chunk and a few decodes, dealt over the DP groups for MoE archs.
template <class Arch>
void evaluate_one(const Arch& arch) {
  const std::vector<ops::PrefillChunk> prefill{{100, 512}};
  const std::vector<std::uint32_t> decode(9, 1000);
  const ops::AttentionBatch batch{prefill, decode};
  const auto tree = arch.build(roofline());
  archs::BatchFeed feed;
  fuzz::require_finite(evaluate(tree, feed(arch, batch)));
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::uint32_t tp = 1u << ((data[0] >> 2) & 3), ep = tp << ((data[0] >> 4) & 3);
  try {
    const HfConfig hf = parse_hf_config(std::string_view(reinterpret_cast<const char*>(data) + 1, size - 1), "fuzz.json");
    switch (data[0] & 3) {
      case 0: evaluate_one(archs::Llama3<archs::Llama3Config>(archs::Llama3Config::from_hf(hf, {.tp = tp}))); break;
      case 1: evaluate_one(archs::Qwen3Moe<archs::Qwen3MoeConfig>(archs::Qwen3MoeConfig::from_hf(hf, {.tp = tp, .ep = ep}))); break;
      default: evaluate_one(archs::DeepseekV3<archs::DeepseekV3Config>(archs::DeepseekV3Config::from_hf(hf, {.tp = tp, .ep = ep})));
    }
  } catch (const Error&) {
  }
  return 0;
}
