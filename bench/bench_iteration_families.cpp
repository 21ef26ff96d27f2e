// iteration/<arch>/static for the families without a TU of their own (Qwen3 dense,
// Mixtral, gpt-oss, Llama-4 Maverick: dense and MoE layers in one period): the static form only, its result checked against the run-time form
// (compiled once in libcostdsl-compiled), so that bench_smoke runs one iteration of every
// shipped family. On H200, the batch of iteration.hpp.
#include <benchmark/benchmark.h>

#include "costdsl/costdsl.hpp"
#include "costdsl/archs/gpt_oss.hpp"
#include "costdsl/archs/llama4.hpp"
#include "costdsl/archs/mixtral.hpp"
#include "costdsl/archs/qwen3.hpp"
#include "iteration.hpp"

namespace {
using namespace costdsl;

const archs::Qwen3<Fixed<deploy(archs::qwen3_32b, {.tp = 8})>> qwen3_static;
const archs::Qwen3<archs::Qwen3Config> qwen3_runtime(deploy(archs::qwen3_32b, {.tp = 8}));
const archs::Mixtral<Fixed<deploy(archs::mixtral_8x7b, {.tp = 1, .ep = 8})>> mixtral_static;
const archs::Mixtral<archs::MixtralConfig> mixtral_runtime(deploy(archs::mixtral_8x7b, {.tp = 1, .ep = 8}));
const archs::GptOss<Fixed<deploy(archs::gpt_oss_120b, {.tp = 1, .ep = 8})>> gpt_oss_static;
const archs::GptOss<archs::GptOssConfig> gpt_oss_runtime(deploy(archs::gpt_oss_120b, {.tp = 1, .ep = 8}));
const archs::Llama4<Fixed<deploy(archs::llama4_maverick, {.tp = 1, .ep = 8})>> maverick_static;
const archs::Llama4<archs::Llama4MaverickConfig> maverick_runtime(deploy(archs::llama4_maverick, {.tp = 1, .ep = 8}));

const bool registered = (bench::register_static_iteration("qwen3_32b", qwen3_static, qwen3_runtime),
                         bench::register_static_iteration("mixtral_8x7b", mixtral_static, mixtral_runtime),
                         bench::register_static_iteration("gpt_oss_120b", gpt_oss_static, gpt_oss_runtime),
                         bench::register_static_iteration("llama4_maverick", maverick_static, maverick_runtime), true);

}  // namespace
