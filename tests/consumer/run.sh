#!/usr/bin/env bash
# shellcheck disable=SC2317  # helpers reached through logged() and the EXIT trap
# costdsl as a dependency of someone else's project, three ways, each building
# tests/consumer/sim.cpp (a whole Llama-3-8B in both forms) and checking its total
# against the in-tree CLI's for the same iteration:
#   1. a meson subproject (dependency('costdsl') with fallback), header-only;
#   2. installed to a prefix, found by an outside meson project through pkg-config,
#      against libcostdsl (dependency('costdsl-compiled'));
#   3. installed, compiled by hand outside the source tree:
#        g++ $(pkg-config --cflags costdsl) sim.cpp $(pkg-config --libs costdsl)
#      header-only and against libcostdsl (costdsl-compiled).
# Each meson route builds only its mode's targets: libcostdsl in route 1 too would compile
# every arch's run-time form once more, and routes 2 and 3 already check libcostdsl.
# The routes run side by side (route 1 beside route 2's library build, then route 2's
# project beside route 3's two programs): each compiles only a TU or two at a time, and
# this is the suite's longest test. Each build runs at most two compile jobs.
# usage: run.sh SOURCE_ROOT COSTDSL_CLI
set -euo pipefail
src_root=$1
cli=$2
work=$(mktemp -d)
# A route that fails stops the script, and the other routes with it (a compile they had
# already started runs to its end).
cleanup() {
  local running
  running=$(jobs -p)
  if [ -n "$running" ]; then
    # shellcheck disable=SC2086  # one pid per word
    kill $running 2>/dev/null || true
    wait || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT

expected=$("$cli" eval --arch llama3_8b --tp 2 --gpu h200 --timing roofline --prefill 0:2048 --decode 32x1024 --json |
  python3 -c 'import json, sys; print(repr(json.load(sys.stdin)["total"]["time_ms"]))')
echo "in-tree CLI: $expected ms"
consumer_files=(meson.build meson_options.txt main.cpp sim.cpp)
# -O1 and no debug info anywhere: these builds check that things compile, link and add
# up; -g doubles the time of the arch translation units and -O2 adds ~70% to it.
build_options=(-Ddebug=false -Doptimization=1)

# logged LOG COMMAND...: runs COMMAND with its output in $work/LOG, printed if it fails.
logged() {
  local log=$1
  shift
  "$@" >"$work/$log" 2>&1 || { cat "$work/$log"; return 1; }
}
# compile_and_test BUILD_DIR TARGET...: compiles only TARGETs, then runs their tests.
compile_and_test() {
  local dir=$1
  shift
  meson compile -C "$dir" -j 2 "$@" && meson test -C "$dir" --no-rebuild --print-errorlogs "$@"
}
# compile_and_install BUILD_DIR
compile_and_install() { meson compile -C "$1" -j 2 && meson install -C "$1" --no-rebuild; }

# 1. Subproject.
route_subproject() {
  mkdir -p "$work/sub/subprojects"
  for f in "${consumer_files[@]}"; do cp "$src_root/tests/consumer/$f" "$work/sub/"; done
  ln -s "$src_root" "$work/sub/subprojects/costdsl"
  logged setup1.log meson setup "$work/sub/build" "$work/sub" -Dexpected_ms="$expected" "${build_options[@]}" \
    -Dcostdsl:tests=false -Dcostdsl:tools=false -Dcostdsl:benchmarks=disabled -Dcostdsl:cuda=disabled \
    --wrap-mode=forcefallback &&
    logged test1.log compile_and_test "$work/sub/build" consumer sim_header_only &&
    echo "subproject, header-only: ok"
}

# 2. Installed; an outside meson project finds it through pkg-config.
route_pkg_config_meson() {
  mkdir -p "$work/pkg"
  for f in "${consumer_files[@]}"; do cp "$src_root/tests/consumer/$f" "$work/pkg/"; done
  PKG_CONFIG_PATH="$pc_dir" logged setup3.log meson setup "$work/pkg/build" "$work/pkg" -Dexpected_ms="$expected" \
    "${build_options[@]}" --wrap-mode=nofallback &&
    logged test3.log compile_and_test "$work/pkg/build" sim_compiled &&
    echo "installed, meson + pkg-config, libcostdsl: ok"
}

# 3. Installed, by hand, from a directory with no data/ in sight; the source tree is
# hidden from the environment too (no COSTDSL_DATA_DIR). PC: costdsl or costdsl-compiled.
route_by_hand() {
  local pc=$1 dir="$work/elsewhere_$1"
  mkdir -p "$dir"
  cp "$src_root/tests/consumer/sim.cpp" "$dir/"
  cd "$dir"
  unset COSTDSL_DATA_DIR
  # shellcheck disable=SC2046  # pkg-config's output is meant to be split into words
  logged "gxx_$pc.log" g++ -o "sim_$pc" sim.cpp $(PKG_CONFIG_PATH="$pc_dir" pkg-config --cflags --libs "$pc") &&
    "./sim_$pc" "$expected" &&
    echo "installed, g++ \$(pkg-config --cflags --libs $pc): ok"
}

pids=()
route_subproject &
pids+=($!)
logged setup2.log meson setup "$work/lib" "$src_root" "${build_options[@]}" -Dtests=false -Dtools=false \
  -Dbenchmarks=disabled -Dcuda=disabled --prefix="$work/prefix"
logged install.log compile_and_install "$work/lib"
pc_dir=$(dirname "$(find "$work/prefix" -name costdsl.pc | head -n 1)")
route_pkg_config_meson &
pids+=($!)
route_by_hand costdsl &
pids+=($!)
route_by_hand costdsl-compiled &
pids+=($!)
failed=0
for pid in "${pids[@]}"; do wait "$pid" || failed=1; done
exit "$failed"
