// iteration/qwen3_235b_a22b/*: Qwen3-235B-A22B with EP 8 and DP attention (tp 1, dp 8) on H200.
#include "costdsl/costdsl.hpp"
#include "costdsl/archs/qwen3_moe.hpp"
#include "iteration.hpp"

namespace {
using namespace costdsl;

const archs::Qwen3Moe<Fixed<deploy(archs::qwen3_235b_a22b, {.tp = 1, .ep = 8})>> static_arch;
const archs::Qwen3Moe<archs::Qwen3MoeConfig> runtime_arch(deploy(archs::qwen3_235b_a22b, {.tp = 1, .ep = 8}));
const bool registered = (bench::register_iteration("qwen3_235b_a22b", static_arch, runtime_arch), true);

}  // namespace
