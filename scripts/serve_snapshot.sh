#!/usr/bin/env bash
# Every serving figure the tools print for eleven workloads, in one directory, so that a
# change to the simulator's speed (serve/, the Reevaluator, the fold) can show it changed
# no number: serve_sim --json (less its wall-clock fields), simulate --json and plan --json,
# aggregated and disaggregated, open and closed loops, dense, KV-parallel and DP-MoE archs,
# the ideal engine and the three framework schedulers.
#
#   scripts/serve_snapshot.sh build /tmp/before   # on the old code (its build directory)
#   scripts/serve_snapshot.sh build /tmp/after    # on the new
#   diff -r /tmp/before /tmp/after && echo identical
set -euo pipefail
build=${1:?usage: serve_snapshot.sh BUILD_DIR OUT_DIR}
out=${2:?usage: serve_snapshot.sh BUILD_DIR OUT_DIR}
bin=$build/costdsl
sim=$build/examples/serve_sim/serve_sim
mkdir -p "$out"

# serve_sim: wall time and its rates are the only fields that may differ.
serve_sim() {  # serve_sim NAME ARGS...
  local name=$1
  shift
  "$sim" "$@" --json | grep -v -e '"wall_s"' -e '"sim_s_per_wall_s"' -e '"ns_per_iteration"' >"$out/$name.json"
}
serve_sim serve_sim.poisson150 --model llama3_8b --gpu h200 --requests 1500 --rate 150 --seed 1
serve_sim serve_sim.poisson20 --model llama3_8b --gpu h200 --requests 1500 --rate 20 --seed 3

simulate() {  # simulate NAME ARGS...
  local name=$1
  shift
  "$bin" simulate "$@" --json >"$out/$name.json"
}
simulate simulate.llama70b.closed --arch llama3_70b --gpu h200 --tp 8 --batch 64 --concurrency 64 --isl 4000 --osl 1000
simulate simulate.llama70b.hp2 --arch llama3_70b --gpu h200 --tp 8 --hp 2 --batch 32 --concurrency 32 --isl 6000 \
  --osl 500 --mode disagg --prefill-tp 8 --prefill-workers 2 --decode-workers 1
simulate simulate.llama8b.rate --arch llama3_8b --gpu h100 --tp 1 --batch 32 --isl 2000 --osl 300 --rate 8
simulate simulate.qwen235b.sglang --arch qwen3_235b_a22b --gpu h200 --tp 1 --ep 8 --batch 256 --concurrency 256 \
  --isl 1000 --osl 1000 --framework sglang
simulate simulate.deepseek.disagg --arch deepseek_v3 --gpu h200 --mode disagg --prefill-tp 1 --prefill-ep 16 \
  --prefill-workers 4 --tp 1 --ep 32 --decode-workers 1 --batch 512 --isl 4000 --osl 500
simulate simulate.llama8b.trtllm --arch llama3_8b --gpu h100 --tp 1 --batch 8 --concurrency 8 --isl 1024 --osl 512 \
  --framework trtllm
simulate simulate.gptoss.vllm --arch gpt_oss_120b --gpu b200 --tp 1 --ep 4 --batch 64 --concurrency 64 --isl 1024 \
  --osl 1024 --framework vllm

"$bin" plan --arch llama3_70b --gpu h200 --gpus 8 --isl 4000 --osl 500 --ttft 300 --tpot 20 --json \
  >"$out/plan.llama70b.json"
"$bin" plan --arch llama3_8b --gpu h200 --gpus 8 --isl 2000 --osl 300 --ttft 500 --tpot 30 --rate 20 --json \
  >"$out/plan.llama8b.rate.json"
