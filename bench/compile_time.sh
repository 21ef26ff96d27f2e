#!/usr/bin/env bash
# Compile time and peak memory of each arch translation unit alone: the static
# form built, its inputs made and one iteration evaluated, at -O0 and -O2.
# usage: bench/compile_time.sh [CXX]                 prints a Markdown table
#        bench/compile_time.sh --check BUDGET [CXX]  -O2 only; fails when a TU takes more
#                                                    than twice its figure in BUDGET (JSON)
set -euo pipefail
budget=""
if [ "${1:-}" = "--check" ]; then budget=$(realpath "$2"); shift 2; fi
cd "$(dirname "$0")/.."
cxx=${1:-g++}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

declare -A tus
tus[llama3_70b_tp8]='#include "costdsl/archs/llama3.hpp"
using namespace costdsl; using namespace costdsl::archs;
int main() { const Llama3<Fixed<llama3_70b.with_tp(8)>> a; const auto t = a.build(Timing::for_gpu("h200", TimingMode::roofline));
  std::vector<ops::PrefillChunk> p{{0, 4096}}; std::vector<std::uint32_t> d(64, 2048);
  return evaluate(t, a.inputs({p, d})).time_s > 0 ? 0 : 1; }'
tus[qwen3_235b_tp4_ep8]='#include "costdsl/archs/qwen3_moe.hpp"
using namespace costdsl; using namespace costdsl::archs;
int main() { const Qwen3Moe<Fixed<qwen3_235b_a22b.with_parallel(4, 8)>> a; const auto t = a.build(Timing::for_gpu("h200", TimingMode::roofline));
  std::vector<ops::PrefillChunk> p{{0, 4096}}; std::vector<std::uint32_t> d(32, 2048);
  const ops::AttentionBatch g[2] = {{p, d}, {{}, d}};
  return evaluate(t, a.inputs({g, {}})).time_s > 0 ? 0 : 1; }'
tus[qwen3_30b_tp1_ep8]='#include "costdsl/archs/qwen3_moe.hpp"
using namespace costdsl; using namespace costdsl::archs;
int main() { const Qwen3Moe<Fixed<qwen3_30b_a3b.with_parallel(1, 8)>> a; const auto t = a.build(Timing::for_gpu("h200", TimingMode::roofline));
  std::vector<ops::PrefillChunk> p{{0, 4096}}; std::vector<std::uint32_t> d(8, 2048);
  const ops::AttentionBatch g[8] = {{p, d}, {{}, d}, {{}, d}, {{}, d}, {{}, d}, {{}, d}, {{}, d}, {{}, d}};
  return evaluate(t, a.inputs({g, {}})).time_s > 0 ? 0 : 1; }'
tus[deepseek_v3_tp8_ep8]='#include "costdsl/archs/deepseek_v3.hpp"
using namespace costdsl; using namespace costdsl::archs;
int main() { const DeepseekV3<Fixed<deepseek_v3.with_parallel(8, 8)>> a; const auto t = a.build(Timing::for_gpu("h200", TimingMode::roofline));
  std::vector<ops::PrefillChunk> p{{0, 4096}}; std::vector<std::uint32_t> d(64, 2048);
  const ops::AttentionBatch g[1] = {{p, d}};
  return evaluate(t, a.inputs({g, {}})).time_s > 0 ? 0 : 1; }'

levels="-O0 -O2"
if [ -n "$budget" ]; then
  levels="-O2"
  echo "| translation unit | -O2 s | -O2 peak MiB |"
  echo "|---|---|---|"
else
  echo "| translation unit | -O0 s | -O0 peak MiB | -O2 s | -O2 peak MiB |"
  echo "|---|---|---|---|---|"
fi
over=0
for name in $(printf '%s\n' "${!tus[@]}" | sort); do
  printf '%s\n' "${tus[$name]}" > "$work/$name.cpp"
  row="| $name"
  for opt in $levels; do
    /usr/bin/time -f '%e %M' -o "$work/time" "$cxx" -std=c++20 $opt -Iinclude -c "$work/$name.cpp" -o "$work/$name.o"
    read -r secs kib < "$work/time"
    row="$row | $secs | $((kib / 1024))"
    if [ -n "$budget" ]; then
      limit=$(python3 -c "import json,sys; print(2 * json.load(open(sys.argv[1]))[sys.argv[2]])" "$budget" "$name")
      if python3 -c "import sys; sys.exit(0 if float(sys.argv[1]) > float(sys.argv[2]) else 1)" "$secs" "$limit"; then
        echo "OVER BUDGET: $name took $secs s at -O2, more than twice its recorded figure ($limit s)" >&2
        over=1
      fi
    fi
  done
  echo "$row |"
done
exit $over
