// costdsl-bench's main: Google Benchmark's, except that a benchmark that reports an error
// (SkipWithError: a timed iteration that is not what the library computes, see
// iteration.hpp) makes the program exit 1, so that `meson test bench_smoke` fails on it.
#include <benchmark/benchmark.h>

#include <vector>

namespace {

class FailOnError : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& run : runs) failed_ = failed_ || run.error_occurred;
    ConsoleReporter::ReportRuns(runs);
  }
  bool failed() const { return failed_; }

 private:
  bool failed_ = false;
};

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  // The console reporter is the display; --benchmark_out still writes JSON or CSV files.
  FailOnError reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  return reporter.failed() ? 1 : 0;
}
