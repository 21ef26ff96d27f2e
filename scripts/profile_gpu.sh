#!/usr/bin/env bash
# Measure costdsl's kernel kinds on the local GPU and write the profile DB tables:
#   scripts/profile_gpu.sh [OUTPUT_DIR] [extra costdsl-profile options...]
# Configures a CUDA build (build-profile/), builds costdsl-profile, runs the whole
# default sweep (Llama-3-8B/70B per-rank shapes at TP 1/2/4/8) into
# data/profiles/<gpu>/<kind>.csv plus profile_log.txt (GPU, driver, clocks, library
# versions, per-kind timings), and copies them to OUTPUT_DIR/<gpu>/ when given.
# Budget: the default sweep is sized for <= 8 minutes on one H200; the program prints
# its estimate before measuring.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
out_copy="${1:-}"
[[ $# -gt 0 ]] && shift
export PATH="/usr/local/cuda/bin:${PATH}"
command -v nvcc >/dev/null || { echo "profile_gpu.sh: nvcc not found (looked in PATH and /usr/local/cuda/bin)" >&2; exit 1; }
build="${root}/build-profile"
arch="${COSTDSL_GPU_ARCH:-90}"
if [[ ! -f "${build}/build.ninja" ]]; then
  meson setup "${build}" "${root}" -Dcuda=enabled -Dgpu_arch="${arch}" -Dtests=false -Dtools=false \
    -Dbenchmarks=disabled --buildtype=release
fi
ninja -C "${build}" profiler/costdsl-profile
exe="${build}/profiler/costdsl-profile"

tmp_log="$(mktemp)"
trap 'rm -f "${tmp_log}"' EXIT
{
  echo "# costdsl-profile run $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(hostname)"
  echo "# git: $(git -C "${root}" rev-parse --short HEAD 2>/dev/null || echo unknown)"
  nvcc --version | tail -n 2
  if command -v nvidia-smi >/dev/null; then
    nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,clocks.max.mem,power.limit,temperature.gpu --format=csv || true
  fi
  ls /usr/local/cuda/lib64 2>/dev/null | grep -E '^libcublasLt\.so\.[0-9.]+$' | sed 's/^/cublasLt library: /' || true
} >"${tmp_log}" 2>&1

set +e
start=$(date +%s)
"${exe}" --output "${root}/data/profiles" "$@" 2>&1 | tee -a "${tmp_log}"
rc=${PIPESTATUS[0]}
set -e
echo "# wall time: $(( $(date +%s) - start )) s, exit ${rc}" >>"${tmp_log}"
if [[ ${rc} -eq 77 ]]; then
  echo "profile_gpu.sh: no usable GPU; nothing written" >&2
  exit 77
fi
gpu="$(sed -n 's/^device: .*(canonical \([^)]*\)).*/\1/p' "${tmp_log}" | head -n 1)"
if [[ -z "${gpu}" ]]; then
  echo "profile_gpu.sh: could not tell the GPU name from the run; log:" >&2
  cat "${tmp_log}" >&2
  exit 1
fi
dest="${root}/data/profiles/${gpu}"
mkdir -p "${dest}"
cp "${tmp_log}" "${dest}/profile_log.txt"
echo "tables and log in ${dest}"
if [[ -n "${out_copy}" ]]; then
  mkdir -p "${out_copy}/${gpu}"
  cp "${dest}"/*.csv "${dest}/profile_log.txt" "${out_copy}/${gpu}/" 2>/dev/null || cp "${dest}/profile_log.txt" "${out_copy}/${gpu}/"
  echo "copied to ${out_copy}/${gpu}"
fi
exit "${rc}"
