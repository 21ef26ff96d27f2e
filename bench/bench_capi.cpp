// The C API's iteration calls (libcostdsl-c): what the Python module wraps, so that
// bench/python_overhead.py can state the module's cost over them (bench/README.md).
#include <cstdint>
#include <vector>

#include <benchmark/benchmark.h>

#include "costdsl/c/costdsl.h"

namespace {

// Llama-3-70B at TP 8 on H100: one 4096-token prefill chunk and 64 decodes at KV 1024,
// the batch issue 38's target names.
struct Llama70b {
  costdsl_model* model = nullptr;
  costdsl_prefill_chunk chunk{0, 4096};
  std::vector<std::uint32_t> kv = std::vector<std::uint32_t>(64, 1024);
  Llama70b() {
    if (costdsl_model_open(R"({"arch": "llama3_70b", "gpu": "h100", "tp": 8})", &model) != COSTDSL_OK) model = nullptr;
  }
  ~Llama70b() { costdsl_model_close(model); }
};

void model_time(benchmark::State& state) {
  Llama70b m;
  if (m.model == nullptr) return state.SkipWithError(costdsl_last_error());
  double s = 0;
  for (auto _ : state) {
    costdsl_model_time(m.model, &m.chunk, 1, m.kv.data(), m.kv.size(), &s);
    benchmark::DoNotOptimize(s);
  }
}
BENCHMARK(model_time)->Name("capi/model_time/llama3_70b_tp8");

void model_iteration(benchmark::State& state) {
  Llama70b m;
  if (m.model == nullptr) return state.SkipWithError(costdsl_last_error());
  costdsl_iteration it{};
  for (auto _ : state) {
    costdsl_model_iteration(m.model, &m.chunk, 1, m.kv.data(), m.kv.size(), &it);
    benchmark::DoNotOptimize(it);
  }
}
BENCHMARK(model_iteration)->Name("capi/model_iteration/llama3_70b_tp8");

}  // namespace

BENCHMARK_MAIN();
