#!/usr/bin/env bash
# meson test under AddressSanitizer + UndefinedBehaviorSanitizer, in build-asan/.
#
#   scripts/sanitize.sh [TEST ...]     (default: the subset below; `all` for every test)
#
# The default subset (what CI runs; CI must stay under 30 minutes on 2 cores, and each
# TU that includes whole archs costs minutes to build instrumented): the core algebra and
# laws, caches and loaders, roofline, kernels, the CLI (which runs all three arch families,
# Fanout included, in both forms, and --model-config through each family's from_hf), the
# CLI half of the bad-input catalogue, `costdsl plan` end to end (the serving engine and the
# deployment search over all three families) and the profile-CSV fuzz corpus. Left out for build
# time: the library half of the catalogue, the config.json and CLI fuzz corpora, the
# per-arch doctest TUs and serve_sim (their run-time paths are the CLI's); and always: the
# compile-only tests (compile_fail, headers, compile-time budget), the CUDA profiler (nvcc
# objects are not instrumented) and the out-of-tree consumer build.
# `scripts/sanitize.sh all` runs everything. Any report fails its test (halt_on_error);
# leaks count as errors.
set -euo pipefail
cd "$(dirname "$0")/.."

tests=(core roofline kernels interp cli cli_plan bad_input_cli fuzz_corpus_profile_csv)
[ $# -gt 0 ] && tests=("$@")
[ "${tests[*]}" = all ] && tests=()

if [ ! -f build-asan/build.ninja ]; then
  # -O1 keeps the template-heavy TUs quick to build and the reports precise; -Werror
  # stays with the main build (sanitizer instrumentation brings its own false warnings).
  meson setup build-asan -Db_sanitize=address,undefined -Db_lundef=false -Doptimization=1 -Ddebug=true \
    -Dwerror=false -Dbenchmarks=disabled -Dcuda=disabled >/dev/null
fi

# Regenerate first if a meson.build changed, so that introspection below is current.
ninja -C build-asan build.ninja >/dev/null

export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:detect_stack_use_after_return=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
if [ ${#tests[@]} -eq 0 ]; then
  exec meson test -C build-asan --print-errorlogs
fi
# Build only what the chosen tests need: each test's own executable and its depends.
targets=$(python3 - "${tests[@]}" <<'PY'
import json, os, subprocess, sys
def introspect(what):
    return json.loads(subprocess.check_output(["meson", "introspect", "build-asan", what]))
want = set(sys.argv[1:])
tests = introspect("--tests")
missing = want - {t["name"] for t in tests}
if missing:
    sys.exit("sanitize.sh: no such test(s): " + ", ".join(sorted(missing)))
files = {t["id"]: t["filename"] for t in introspect("--targets")}
build = os.path.abspath("build-asan")
out = set()
for t in tests:
    if t["name"] in want:
        for dep in t["depends"]:
            out.update(os.path.relpath(f, build) for f in files.get(dep, []))
        if t["cmd"][0].startswith(build + "/"):
            out.add(os.path.relpath(t["cmd"][0], build))
print("\n".join(sorted(out)))
PY
)
if [ -n "$targets" ]; then ninja -C build-asan $targets; fi
meson test -C build-asan --no-rebuild --print-errorlogs "${tests[@]}"
