#!/usr/bin/env bash
# The whole test suite under AddressSanitizer + UndefinedBehaviorSanitizer, in build-asan/.
#
#   scripts/sanitize.sh [TEST ...]     (default: every test)
#
# The run-time tests run instrumented: the core, loaders, kernels, the CLI (every arch
# family, both forms and both attention grains, through eval, sweep, plan and the bad-input
# catalogue) and its fuzz corpora, the serving engine (tests/serve), `costdsl plan` end to
# end and serve_sim. The per-arch doctest suites (tests/archs, tests/moe: -Darch_tests=false)
# stay with the main build: under ASan they were 38% of this build's compile time
# (2,230 of 5,900 job-seconds, fresh clone, 2-core box), and the arch code they test runs
# here through the CLI.
# The compile-only checks (headers alone, compile-fail cases, the
# compile-time budget, the out-of-tree consumer build) are left to the main build
# (-Dbuild_checks=false), and the CUDA profiler too (nvcc objects are not instrumented);
# the build is without MPI (-Dmpi=disabled: plan_mpi skips), as Open MPI's own start-up
# allocations are not ours to report.
# Any report fails its test (halt_on_error); leaks count as errors.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ ! -f build-asan/build.ninja ]; then
  # -O1 keeps the template-heavy TUs quick to build and the reports precise; -Werror
  # stays with the main build (sanitizer instrumentation brings its own false warnings).
  meson setup build-asan -Db_sanitize=address,undefined -Db_lundef=false -Doptimization=1 -Ddebug=false \
    -Dwerror=false -Dbenchmarks=disabled -Dcuda=disabled -Dmpi=disabled -Dbuild_checks=false -Darch_tests=false >/dev/null
fi

export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:detect_stack_use_after_return=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
exec meson test -C build-asan --print-errorlogs "$@"
