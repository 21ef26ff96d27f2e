#!/usr/bin/env bash
# The second compiler: builds costdsl (library, CLI, tests) with clang 19 in build-clang/
# and runs `meson test` there (the 'quick' setup, as the README's test command does with g++).
#
#   scripts/clang_check.sh [-j N] [meson test arguments...]
#
# -j N: compile jobs (default: ninja's, one per core plus two); e.g. -j 1 on a shared box.
# Further arguments go to `meson test`, e.g. `--suite core --suite l4` for the core and
# per-arch suites alone.
#
# What it leaves out, and why: the compile-only checks (-Dbuild_checks=false): the
# compile-fail cases match g++'s wording of the diagnostics, the compile-time budget is
# calibrated on g++ and every header alone is a g++ concern as much as a clang one; and
# the benchmark program (-Dbenchmarks=disabled: its smoke test is in suite heavy). The
# sanitized tests (loaders, bad input, fuzz corpora) do run, with clang's runtimes.
#
# clang 19 (Debian 12: clang-19, libclang-rt-19-dev; scripts/setup.sh --fuzz installs them):
# clang 14 and 15 reject a lambda capturing a structured binding, and clang 15 and 16
# miscompile a nested aggregate whose first member is an empty [[no_unique_address]]
# one (LLVM #59831). CXX_CLANG=... picks another clang++.
set -euo pipefail
cd "$(dirname "$0")/.."

jobs=()
if [ "${1:-}" = -j ]; then
  jobs=(-j "${2:?clang_check.sh: -j needs a number}")
  shift 2
fi

cxx=${CXX_CLANG:-clang++-19}
# The compiler and its sanitizer runtimes (the input-reading tests link ASan + UBSan).
if [ -z "${CXX_CLANG:-}" ] && ! dpkg-query -W -f='${Status}\n' clang-19 libclang-rt-19-dev 2>/dev/null \
     | grep -c 'install ok installed' | grep -qx 2; then
  ./scripts/setup.sh --fuzz
fi
command -v "$cxx" > /dev/null || { echo "clang_check: $cxx not found (scripts/setup.sh --fuzz)" >&2; exit 2; }

if [ ! -f build-clang/build.ninja ]; then
  CXX="$cxx" meson setup build-clang -Doptimization=2 -Ddebug=false -Dwerror=true \
    -Dbuild_checks=false -Dbenchmarks=disabled -Dcuda=disabled
fi
meson compile -C build-clang "${jobs[@]}"
meson test -C build-clang --print-errorlogs "$@"
