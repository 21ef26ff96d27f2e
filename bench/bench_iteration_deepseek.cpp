// iteration/deepseek_v3/*: DeepSeek-V3 with EP 8 and DP attention (tp 1, dp 8) on H200.
#include "costdsl/costdsl.hpp"
#include "costdsl/archs/deepseek_v3.hpp"
#include "iteration.hpp"

namespace {
using namespace costdsl;

const archs::DeepseekV3<Fixed<deploy(archs::deepseek_v3, {.tp = 1, .ep = 8})>> static_arch;
const archs::DeepseekV3<archs::DeepseekV3Config> runtime_arch(deploy(archs::deepseek_v3, {.tp = 1, .ep = 8}));
const bool registered = (bench::register_iteration("deepseek_v3", static_arch, runtime_arch), true);

}  // namespace
