#!/usr/bin/env bash
# The whole test suite under AddressSanitizer + UndefinedBehaviorSanitizer, in build-asan/.
#
#   scripts/sanitize.sh [TEST ...]     (default: every test)
#
# Every run-time test runs instrumented: the core, loaders and kernels, the per-arch
# suites, the CLI (every arch family, both forms and both attention grains, through eval,
# sweep, plan and the bad-input catalogue) and its fuzz corpora, the serving engine
# (tests/serve), `costdsl plan` end to end and serve_sim. Not in CI: a second build of
# everything doubles its time; CI runs the input-facing tests sanitized inside the main
# build instead (tests/meson.build).
# The compile-only checks (headers alone, compile-fail cases, the
# compile-time budget, the out-of-tree consumer build) are left to the main build
# (-Dbuild_checks=false), and the CUDA profiler too (nvcc objects are not instrumented);
# the build is without MPI (-Dmpi=disabled: plan_mpi skips), as Open MPI's own start-up
# allocations are not ours to report. It compiles one TU per file (-Dunity_builds=false),
# so a CLI or library source that compiles only inside its unity group shows up here.
# Any report fails its test (halt_on_error); leaks count as errors.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ ! -f build-asan/build.ninja ]; then
  # -O1 keeps the template-heavy TUs quick to build and the reports precise; -Werror
  # stays with the main build (sanitizer instrumentation brings its own false warnings).
  meson setup build-asan -Db_sanitize=address,undefined -Db_lundef=false -Doptimization=1 -Ddebug=false \
    -Dwerror=false -Dbenchmarks=disabled -Dcuda=disabled -Dmpi=disabled -Dbuild_checks=false \
    -Dunity_builds=false >/dev/null
fi

export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:detect_stack_use_after_return=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
exec meson test -C build-asan --print-errorlogs "$@"
