#!/usr/bin/env bash
# Installs what costdsl needs from Debian 12 packages (only what is missing) and
# configures build/ once. Safe to run again: it does nothing that is already done.
#   --fuzz   also clang 19 and its libFuzzer and sanitizer runtimes, for scripts/fuzz.sh
#            and scripts/clang_check.sh
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(meson ninja-build pkgconf g++ python3
          libboost1.81-dev doctest-dev libfmt-dev nlohmann-json3-dev
          libcli11-dev libbenchmark-dev libopenmpi-dev openmpi-bin zlib1g-dev
          python3-dev pybind11-dev python3-pytest  # the Python module and its tests
          chromium)  # headless, for tests/tools/html_test.py (the --html pages as a browser draws them)
for arg in "$@"; do
  case "$arg" in
    --fuzz) packages+=(clang-19 libclang-rt-19-dev) ;;  # clang 19: scripts/fuzz.sh says why
    *) echo "setup: unknown option '$arg' (known: --fuzz)" >&2; exit 2 ;;
  esac
done

as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done

if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  as_root apt-get update -qq
  # Boost 1.74's dev headers conflict with 1.81's; remove them first if present.
  conflicting=$(dpkg-query -W -f='${Package} ${Status}\n' 'libboost1.74-dev' 'libboost-dev' 2>/dev/null \
                | awk '/install ok installed/ {print $1}' || true)
  if [ -n "$conflicting" ] && printf '%s\n' "${missing[@]}" | grep -q '^libboost1.81-dev$'; then
    as_root apt-get remove -y -qq $conflicting
  fi
  as_root apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# nvcc lives outside PATH on CUDA installs; meson finds it (and builds the CUDA
# profiler) when it is on PATH at configure time.
if [ -x /usr/local/cuda/bin/nvcc ]; then export PATH="/usr/local/cuda/bin:$PATH"; fi

if [ ! -f build/build.ninja ]; then
  # -O2 without debug info: the arch translation units are template-heavy, and
  # -g multiplies their object size and compile time.
  meson setup build -Doptimization=2 -Ddebug=false -Dwerror=true
fi
