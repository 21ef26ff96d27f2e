#!/usr/bin/env bash
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
# usage: run.sh SOURCE_ROOT COSTDSL_CLI
set -euo pipefail
src_root=$1
cli=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

expected=$("$cli" eval --arch llama3_8b --tp 2 --gpu h200 --timing roofline --prefill 0:2048 --decode 32x1024 --json |
  python3 -c 'import json, sys; print(repr(json.load(sys.stdin)["total"]["time_ms"]))')
echo "in-tree CLI: $expected ms"
consumer_files=(meson.build meson_options.txt main.cpp sim.cpp)

# 1. Subproject.
mkdir -p "$work/sub/subprojects"
for f in "${consumer_files[@]}"; do cp "$src_root/tests/consumer/$f" "$work/sub/"; done
ln -s "$src_root" "$work/sub/subprojects/costdsl"
# -O1 and no debug info anywhere: these builds check that things compile, link and add
# up; -g doubles the time of the arch translation units and -O2 adds ~70% to it.
meson setup "$work/sub/build" "$work/sub" -Dexpected_ms="$expected" -Ddebug=false -Doptimization=1 -Dcostdsl:tests=false -Dcostdsl:tools=false \
  -Dcostdsl:benchmarks=disabled -Dcostdsl:cuda=disabled --wrap-mode=forcefallback >"$work/setup1.log" 2>&1 ||
  { cat "$work/setup1.log"; exit 1; }
{ meson compile -C "$work/sub/build" consumer sim_header_only &&
  meson test -C "$work/sub/build" --no-rebuild --print-errorlogs consumer sim_header_only; } >"$work/test1.log" 2>&1 ||
  { cat "$work/test1.log"; exit 1; }
echo "subproject, header-only: ok"

# 2. Installed; an outside meson project finds it through pkg-config.
meson setup "$work/lib" "$src_root" -Ddebug=false -Doptimization=1 -Dtests=false -Dtools=false -Dbenchmarks=disabled -Dcuda=disabled \
  --prefix="$work/prefix" >"$work/setup2.log" 2>&1 || { cat "$work/setup2.log"; exit 1; }
meson install -C "$work/lib" >"$work/install.log" 2>&1 || { cat "$work/install.log"; exit 1; }
pc_dir=$(dirname "$(find "$work/prefix" -name costdsl.pc | head -n 1)")
mkdir -p "$work/pkg"
for f in "${consumer_files[@]}"; do cp "$src_root/tests/consumer/$f" "$work/pkg/"; done
PKG_CONFIG_PATH="$pc_dir" meson setup "$work/pkg/build" "$work/pkg" -Dexpected_ms="$expected" -Ddebug=false -Doptimization=1 \
  --wrap-mode=nofallback \
  >"$work/setup3.log" 2>&1 || { cat "$work/setup3.log"; exit 1; }
{ meson compile -C "$work/pkg/build" sim_compiled &&
  meson test -C "$work/pkg/build" --no-rebuild --print-errorlogs sim_compiled; } >"$work/test3.log" 2>&1 ||
  { cat "$work/test3.log"; exit 1; }
echo "installed, meson + pkg-config, libcostdsl: ok"

# 3. Installed, by hand, from a directory with no data/ in sight; the source tree is
# hidden from the environment too (no COSTDSL_DATA_DIR).
mkdir -p "$work/elsewhere"
cp "$src_root/tests/consumer/sim.cpp" "$work/elsewhere/"
cd "$work/elsewhere"
unset COSTDSL_DATA_DIR
for pc in costdsl costdsl-compiled; do
  # shellcheck disable=SC2046  # pkg-config's output is meant to be split into words
  g++ -o "sim_$pc" sim.cpp $(PKG_CONFIG_PATH="$pc_dir" pkg-config --cflags --libs "$pc") >"$work/gxx_$pc.log" 2>&1 ||
    { cat "$work/gxx_$pc.log"; exit 1; }
  "./sim_$pc" "$expected"
  echo "installed, g++ \$(pkg-config --cflags --libs $pc): ok"
done
