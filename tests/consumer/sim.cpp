// A downstream simulator built against costdsl from outside its source tree: a whole
// arch in both forms, timed from the shipped data wherever it was installed.
//
//   sim EXPECTED_MS   exits 0 when both forms give EXPECTED_MS (the in-tree CLI's total
//                     for the same iteration) to 1e-9 relative, else 1.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <costdsl/archs/llama3.hpp>
#include <costdsl/core.hpp>
#include <costdsl/load_hf_config.hpp>
#include <costdsl/load_timing.hpp>

int main(int argc, char** argv) {
  using namespace costdsl;
  using namespace costdsl::archs;
  if (argc != 2) return 2;
  const double expected_ms = std::strtod(argv[1], nullptr);
  // Nothing here names a data directory: the installed headers know it.
  const Timing timing = load_timing("h200", TimingMode::roofline);
  const std::vector<ops::PrefillChunk> prefill{{0, 2048}};
  const std::vector<std::uint32_t> decode(32, 1024);

  const Llama3<Fixed<deploy(llama3_8b, {.tp = 2})>> fixed;
  const double static_ms = evaluate(fixed.build(timing), fixed.inputs({prefill, decode})).time_ms();

  const Llama3<Llama3Config> runtime(
      Llama3Config::from_hf(load_hf_config(default_data_dir() / "models" / "llama3_8b.json"), {.tp = 2}));
  const double runtime_ms = evaluate(runtime.build(timing), runtime.inputs({prefill, decode})).time_ms();

  std::printf("llama3_8b tp 2 on %s: static %.6f ms, config.json %.6f ms, expected %.6f ms\n",
              timing.gpu().name.c_str(), static_ms, runtime_ms, expected_ms);
  auto close = [&](double x) { return std::abs(x - expected_ms) <= 1e-9 * expected_ms; };
  return close(static_ms) && close(runtime_ms) ? 0 : 1;
}
