#!/usr/bin/env bash
# Fuzz one of costdsl's input paths with libFuzzer (clang) under ASan + UBSan.
#
#   scripts/fuzz.sh profile_csv|hf_config|cli [SECONDS=600] [extra libFuzzer flags...]
#   scripts/fuzz.sh build [profile_csv|hf_config|cli ...]   # only build (default: all three)
#
# Builds build-fuzz/fuzz_<name> from tests/fuzz/fuzz_<name>.cpp and runs it for SECONDS
# on one core, starting from the committed corpus tests/fuzz/corpus/<name> (read only)
# and a scratch corpus build-fuzz/corpus-<name> (where new inputs go). A crash leaves
# build-fuzz/crash-* and a non-zero exit: fix it, then add the input to the committed
# corpus so that `meson test --suite fuzz` replays it forever. `build` checks that the
# harnesses still compile and link with libFuzzer, without fuzzing. Needs clang 19 and
# its runtime (Debian 12: clang-19, libclang-rt-19-dev; scripts/setup.sh --fuzz installs
# them); CXX_FUZZ=... picks another clang++.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
usage="usage: scripts/fuzz.sh profile_csv|hf_config|cli [SECONDS] [libFuzzer flags] | build [NAME...]"
name=${1:?$usage}
harnesses=(profile_csv hf_config cli)
check_name() {
  case "$1" in profile_csv|hf_config|cli) ;; *) echo "fuzz.sh: unknown harness '$1'" >&2; exit 2 ;; esac
}
# clang 19: clang 14 and 15 reject a lambda capturing a structured binding (C++20), and
# clang 15 and 16 miscompile a nested aggregate whose first member is an empty
# [[no_unique_address]] one (LLVM #59831).
cxx=${CXX_FUZZ:-$(command -v clang++-19 || true)}
[ -n "$cxx" ] || { echo "fuzz.sh: clang++-19 not found (scripts/setup.sh --fuzz)" >&2; exit 2; }

out="$root/build-fuzz"
mkdir -p "$out"

flags=(-std=c++20 -O1 -g -fno-omit-frame-pointer -ffp-contract=off -fsanitize=fuzzer,address,undefined
       -fno-sanitize-recover=undefined -I "$root/include" -I "$root/tools" -I "$root/tests/fuzz"
       -DCOSTDSL_DATA_DIR="\"$root/data\"")
# newer REF DIR...: true if a C++ source or header under DIR... is newer than REF (or REF is missing).
newer() {
  local ref=$1
  shift
  [ ! -e "$ref" ] || [ -n "$(find "$@" -newer "$ref" -name '*.[hc]pp' -print -quit)" ]
}
library=("$root/include" "$root/kernels" "$root/ops" "$root/worklets" "$root/archs" "$root/serve")

# build NAME: build-fuzz/fuzz_NAME, rebuilt when a header, source or the harness is newer.
build() {
  local name=$1 bin="$out/fuzz_$1" libs=()
  # The CLI harness runs the CLI's own translation units: those of the costdsl_cli library
  # (tools/meson.build), i.e. all of tools/ but main.cpp and the MPI shim. They are compiled
  # once into build-fuzz/libfuzz_cli_tools.a (about 14 min on one core), so that an edit to
  # the harness alone rebuilds in seconds.
  if [ "$name" = cli ]; then
    local lib="$out/libfuzz_cli_tools.a" objdir="$out/obj-cli"
    if newer "$lib" "${library[@]}" "$root/tools"; then
      echo "fuzz.sh: building $lib" >&2
      rm -rf "$objdir" "$lib"
      mkdir -p "$objdir"
      local src
      for src in $(cd "$root/tools" && find . -name '*.cpp' ! -name main.cpp ! -name mpi_shim.cpp | sort); do
        local obj="$objdir/$(echo "${src#./}" | tr / _).o"
        "$cxx" "${flags[@]}" -c "$root/tools/$src" -o "$obj"
      done
      ar rcs "$lib" "$objdir"/*.o
    fi
    libs=("$lib")
  fi
  if newer "$bin" "${library[@]}" "$root/tests/fuzz" || { [ ${#libs[@]} -gt 0 ] && [ "${libs[0]}" -nt "$bin" ]; }; then
    echo "fuzz.sh: building $bin" >&2
    "$cxx" "${flags[@]}" "$root/tests/fuzz/fuzz_$name.cpp" "${libs[@]}" -o "$bin.tmp" -lfmt -lz
    mv "$bin.tmp" "$bin"
  fi
}

if [ "$name" = build ]; then
  shift
  [ $# -gt 0 ] || set -- "${harnesses[@]}"
  for h in "$@"; do check_name "$h"; done
  for h in "$@"; do build "$h"; done
  echo "fuzz.sh: built $(printf 'build-fuzz/fuzz_%s ' "$@")" >&2
  exit 0
fi

check_name "$name"
seconds=${2:-600}
shift $(( $# >= 2 ? 2 : 1 ))
build "$name"
mkdir -p "$out/corpus-$name"
cd "$out"
# -artifact_prefix: crash files in build-fuzz/ whatever the harness's working directory
# (fuzz_cli works in a sandbox of its own).
exec "$out/fuzz_$name" -max_total_time="$seconds" -timeout=10 -artifact_prefix="$out/" -rss_limit_mb=4096 -max_len=4096 -print_final_stats=1 \
  "$@" "$out/corpus-$name" "$root/tests/fuzz/corpus/$name"
