#!/usr/bin/env bash
# The C API as a C programmer links it: plain cc with pkg-config's costdsl-c entry (the
# build tree's uninstalled variant, which pkg-config picks from PKG_CONFIG_PATH), then the
# README's "From C" program run against the built libcostdsl-c.
# usage: cc_pkg_config.sh BUILD_ROOT SOURCE_ROOT
set -euo pipefail
build=$1
src=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export PKG_CONFIG_PATH="$build/meson-uninstalled"
flags=$(pkg-config --cflags --libs costdsl-c)
# shellcheck disable=SC2086  # pkg-config's output is meant to be split into words
cc -std=c11 -Wall -Wextra -Werror -o "$work/from_c" "$src/examples/c_api/example.c" $flags
LD_LIBRARY_PATH="$build/src/capi" "$work/from_c" | tee "$work/out"
grep -q "^iteration .* ms" "$work/out"
echo "cc \$(pkg-config --cflags --libs costdsl-c): ok"
