#!/usr/bin/env bash
# Builds tests/consumer two ways: with costdsl as a meson subproject, and against
# an installed costdsl found through pkg-config.
set -euo pipefail
src_root=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# 1. Subproject.
mkdir -p "$work/sub/subprojects"
cp "$src_root/tests/consumer/meson.build" "$src_root/tests/consumer/main.cpp" "$work/sub/"
ln -s "$src_root" "$work/sub/subprojects/costdsl"
meson setup "$work/sub/build" "$work/sub" -Dcostdsl:tests=false -Dcostdsl:tools=false -Dcostdsl:benchmarks=disabled -Dcostdsl:cuda=disabled \
  --wrap-mode=forcefallback >"$work/setup1.log" 2>&1 || { cat "$work/setup1.log"; exit 1; }
meson test -C "$work/sub/build" --print-errorlogs >"$work/test1.log" 2>&1 || { cat "$work/test1.log"; exit 1; }
echo "subproject: ok"

# 2. Installed, through pkg-config.
meson setup "$work/lib" "$src_root" -Dtests=false -Dtools=false -Dbenchmarks=disabled -Dcuda=disabled --prefix="$work/prefix" \
  >"$work/setup2.log" 2>&1 || { cat "$work/setup2.log"; exit 1; }
meson install -C "$work/lib" >"$work/install.log" 2>&1 || { cat "$work/install.log"; exit 1; }
pc_dir=$(dirname "$(find "$work/prefix" -name costdsl.pc | head -n 1)")
mkdir -p "$work/pkg"
cp "$src_root/tests/consumer/meson.build" "$src_root/tests/consumer/main.cpp" "$work/pkg/"
PKG_CONFIG_PATH="$pc_dir" meson setup "$work/pkg/build" "$work/pkg" --wrap-mode=nofallback \
  >"$work/setup3.log" 2>&1 || { cat "$work/setup3.log"; exit 1; }
meson test -C "$work/pkg/build" --print-errorlogs >"$work/test3.log" 2>&1 || { cat "$work/test3.log"; exit 1; }
echo "pkg-config: ok"
