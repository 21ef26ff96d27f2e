#!/usr/bin/env bash
# Every model-level output the CLI prints, in one directory, so that a refactor of archs/
# can show it changed nothing: `costdsl archs`, then `eval --json` (a mixed batch) of every
# shipped arch and of one config.json per family on two GPUs, under each attention and
# expert grain the family has, and the quantized checkpoints of the silicon sample.
#
#   scripts/eval_snapshot.sh build/costdsl /tmp/before   # on the old code
#   scripts/eval_snapshot.sh build/costdsl /tmp/after    # on the new
#   diff -r /tmp/before /tmp/after && echo identical
#
# Uses the roofline and the shipped tables (--timing auto), so both kinds of leaf are in it.
set -euo pipefail
bin=${1:?usage: eval_snapshot.sh COSTDSL OUT_DIR}
out=${2:?usage: eval_snapshot.sh COSTDSL OUT_DIR}
configs=${SILICON_CONFIGS:-$(dirname "$0")/../../shared/calibration/silicon/model_configs}
mkdir -p "$out"
"$bin" archs >"$out/archs.txt"

batch=(--prefill 0:2048 --prefill 1024:512 --decode 48x4096 --decode 16x700)
run() {  # run NAME ARGS...: eval --json of ARGS on each GPU into NAME.<gpu>.json
  local name=$1
  shift
  for gpu in h100 b200; do
    "$bin" eval "$@" --gpu "$gpu" "${batch[@]}" --json >"$out/$name.$gpu.json" 2>&1 || true
  done
}

for arch in $("$bin" archs | awk '{print $1}'); do
  family=$("$bin" archs | awk -v a="$arch" '$1 == a {print $2}')
  case $family in
    llama | qwen3)
      run "$arch.tp1" --arch "$arch"
      run "$arch.tp8" --arch "$arch" --tp 8
      run "$arch.tp8.hp2" --arch "$arch" --tp 8 --hp 2
      run "$arch.tp8.rep" --arch "$arch" --tp 16 --kv-replicate
      ;;
    deepseek_v3)
      run "$arch.ep8" --arch "$arch" --ep 8
      run "$arch.tp8" --arch "$arch" --tp 8
      run "$arch.hp8" --arch "$arch" --ep 64 --hp 8
      ;;
    *)
      run "$arch.ep8" --arch "$arch" --ep 8
      run "$arch.tp4" --arch "$arch" --tp 4
      run "$arch.skew" --arch "$arch" --ep 8 --routing-skew 1
      ;;
  esac
done

if [[ -d $configs ]]; then
  for f in "$configs"/*_config.json; do
    name=$(basename "$f" _config.json)
    [[ $name == *_hf_quant ]] && continue  # a quantization sidecar, read beside its config.json
    run "cfg.$name.tp8" --model-config "$f" --tp 8
    run "cfg.$name.ep8" --model-config "$f" --ep 8
  done
fi
echo "$(ls "$out" | wc -l) files in $out"
