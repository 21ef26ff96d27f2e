#!/usr/bin/env bash
# Fuzz one of costdsl's input paths with libFuzzer (clang) under ASan + UBSan.
#
#   scripts/fuzz.sh profile_csv|hf_config|cli [SECONDS=600] [extra libFuzzer flags...]
#
# Builds build-fuzz/fuzz_<name> from tests/fuzz/fuzz_<name>.cpp and runs it for SECONDS
# on one core, starting from the committed corpus tests/fuzz/corpus/<name> (read only)
# and a scratch corpus build-fuzz/corpus-<name> (where new inputs go). A crash leaves
# build-fuzz/crash-* and a non-zero exit: fix it, then add the input to the committed
# corpus so that `meson test --suite fuzz` replays it forever. Needs clang and Debian's
# libclang-rt-14-dev (scripts/setup.sh --fuzz installs them).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
name=${1:?usage: scripts/fuzz.sh profile_csv|hf_config|cli [SECONDS] [libFuzzer flags]}
seconds=${2:-600}
shift $(( $# >= 2 ? 2 : 1 ))
case "$name" in profile_csv|hf_config|cli) ;; *) echo "fuzz.sh: unknown harness '$name'" >&2; exit 2 ;; esac
cxx=${CXX_FUZZ:-$(command -v clang++ || command -v clang++-14 || true)}
[ -n "$cxx" ] || { echo "fuzz.sh: clang++ not found (scripts/setup.sh --fuzz)" >&2; exit 2; }

out="$root/build-fuzz"
mkdir -p "$out/corpus-$name"
bin="$out/fuzz_$name"
src=("$root/tests/fuzz/fuzz_$name.cpp")
# The CLI harness runs the CLI's own translation units (all of tools/ but main.cpp).
if [ "$name" = cli ]; then
  src+=($(find "$root/tools" -name '*.cpp' ! -name main.cpp | sort))
fi
# Rebuild when any header or the harness is newer than the binary.
if [ ! -x "$bin" ] || [ -n "$(find "$root/include" "$root/kernels" "$root/ops" "$root/worklets" "$root/archs" \
      "$root/tools" "$root/tests/fuzz" -newer "$bin" -name '*.[hc]pp' -print -quit)" ]; then
  echo "fuzz.sh: building $bin" >&2
  "$cxx" -std=c++20 -O1 -g -fno-omit-frame-pointer -fsanitize=fuzzer,address,undefined \
    -fno-sanitize-recover=undefined -I "$root/include" -I "$root/tools" -I "$root/tests/fuzz" \
    -DCOSTDSL_DATA_DIR="\"$root/data\"" "${src[@]}" -o "$bin" -lfmt
fi
cd "$out"
exec "$bin" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=4096 -max_len=4096 -print_final_stats=1 \
  "$@" "$out/corpus-$name" "$root/tests/fuzz/corpus/$name"
