#!/usr/bin/env python3
"""Writes data/harness/inferencex_disagg.csv: the disaggregated deployments SemiAnalysis
InferenceX benchmarked, as its sweep config (.github/configs/nvidia-master.yaml) laid
them out over time, one line per concurrency.

The silicon sample's InferenceX rows of a disaggregated deployment (source_file=
2026-03-25.csv / 2026-04-06.csv) record neither the worker counts nor the batch caps, nor
whether attention ran data-parallel; the sweep config that launched them does. Each
line holds while that entry stood in the config: from the commit that added it
(valid_from, UTC) until the commit that changed or removed it (valid_until; empty: still
there at the last commit read). Needs python3-yaml (Debian 12) and a clone of
https://github.com/SemiAnalysisAI/InferenceX (Apache-2.0).

With --srt-slurm (a clone of srt-slurm, whose recipes the entries launch: CONFIG_FILE),
each role's experts' kernel is read from its recipe as it stood when the entry left the
config (the last srt-slurm commit at or before valid_until, else --until):
prefill_moe_backend / decode_moe_backend are SGLang's `deepep` where the role dispatches
through DeepEP (moe-a2a-backend), else its moe-runner-backend; TensorRT-LLM's
moe_config.backend; empty where the recipe is not in the clone or names none.
decode_stream_interval: an SGLang decode worker's stream-interval (SGLang streams a
request's output when its token count is a multiple of it; empty: not named).

    python3 scripts/import_inferencex_disagg.py --repo PATH [--srt-slurm PATH] [--until 2026-04-10] \
        > data/harness/inferencex_disagg.csv
"""
import argparse
import csv
import datetime
import re
import subprocess
import sys

import yaml

CONFIG = ".github/configs/nvidia-master.yaml"
# The config's model-prefix, runner and framework names as the silicon sample names them.
MODELS = {"dsr1": "deepseek-ai/DeepSeek-R1", "gptoss": "openai/gpt-oss-120b",
          "kimik2.5": "moonshotai/Kimi-K2.5", "glm5": "zhipuai/GLM-5"}
BACKENDS = {"dynamo-trt": "trtllm", "dynamo-sglang": "sglang", "dynamo-vllm": "vllm"}
SYSTEMS = {"h100": "h100_sxm", "h200": "h200_sxm", "b200": "b200_sxm", "b300": "b300_sxm",
           "gb200": "gb200", "gb300": "gb300"}
COLUMNS = ["valid_from", "valid_until", "commit", "config", "model_path", "system", "backend",
           "precision", "isl", "osl", "spec_decoding", "concurrency",
           "prefill_workers", "prefill_gpus", "prefill_ep", "prefill_attention_dp",
           "prefill_max_batch", "prefill_max_tokens",
           "decode_workers", "decode_gpus", "decode_ep", "decode_attention_dp",
           "decode_max_batch", "decode_max_tokens", "recipe", "prefill_moe_backend", "decode_moe_backend",
           "decode_stream_interval"]


def git(repo, *args):
    return subprocess.run(["git", "-C", repo, *args], check=True, capture_output=True, text=True).stdout


def utc(iso):
    return datetime.datetime.fromisoformat(iso).astimezone(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def settings(side):
    """A side's additional-settings ("NAME=VALUE") as a dict."""
    out = {}
    for s in side.get("additional-settings") or []:
        name, _, value = str(s).partition("=")
        out[name.strip()] = value.strip()
    return out


def entries(doc):
    """Every (concurrency, layout) a config lists, as tuples in COLUMNS[3:] order."""
    for key, c in doc.items():
        if not isinstance(c, dict) or not c.get("disagg"):
            continue
        runner = str(c.get("runner", "")).split("-")[0]
        model, backend, system = MODELS.get(c.get("model-prefix")), BACKENDS.get(c.get("framework")), SYSTEMS.get(runner)
        if not (model and backend and system):
            continue
        for seq in c.get("seq-len-configs") or []:
            for e in seq.get("search-space") or []:
                p, d = e["prefill"], e["decode"]
                if not p.get("num-worker") or not d.get("num-worker"):
                    continue  # no workers on one side: an aggregated run listed among the disaggregated ones
                ps, ds = settings(p), settings(d)
                # A config named *-mtp runs speculative decoding whatever its entries say.
                spec = e.get("spec-decoding") or ("mtp" if key.endswith("-mtp") else "none")
                recipe = ps.get("CONFIG_FILE", "") or ds.get("CONFIG_FILE", "")
                # srt-slurm's TensorRT-LLM recipes are named by their decode max_batch_size
                # (per attention-DP rank): ctx1_gen2_dep4_batch768 runs max_batch_size 768.
                named = re.search(r"_batch(\d+)_", recipe) if backend == "trtllm" else None
                decode_batch = ds.get("DECODE_MAX_BATCH_SIZE") or (named.group(1) if named else "")
                for conc in e.get("conc-list") or []:
                    yield (key, model, system, backend, c.get("precision"), seq["isl"], seq["osl"], spec, conc,
                           p["num-worker"], p["tp"], p.get("ep", 1), p["tp"] if p.get("dp-attn") else 1,
                           ps.get("PREFILL_MAX_BATCH_SIZE", ""), ps.get("PREFILL_MAX_NUM_TOKENS", ""),
                           d["num-worker"], d["tp"], d.get("ep", 1), d["tp"] if d.get("dp-attn") else 1,
                           decode_batch, ds.get("DECODE_MAX_NUM_TOKENS", ""), recipe)


def recipe_facts(repo, recipe, before, cache):
    """(prefill experts' kernel, decode experts' kernel, SGLang decode stream-interval) of an
    srt-slurm recipe at the last commit before `before`."""
    if not repo or not recipe:
        return "", "", ""
    key = (recipe, before)
    if key not in cache:
        out = ("", "", "")
        for path in (recipe, recipe.replace("recipies/", "recipes/", 1)):  # an old spelling of the folder
            commit = git(repo, "rev-list", "-1", f"--before={before}", "HEAD", "--", path).strip()
            try:  # the last commit to touch it may have deleted it: then it was not there
                doc = yaml.safe_load(git(repo, "show", f"{commit}:{path}")) if commit else None
            except subprocess.CalledProcessError:
                doc = None
            if not isinstance(doc, dict):
                continue
            be = doc.get("backend") or {}
            if be.get("sglang_config"):
                def sglang(role):
                    r = be["sglang_config"].get(role) or {}
                    return "deepep" if r.get("moe-a2a-backend") == "deepep" else str(r.get("moe-runner-backend", ""))
                interval = (be["sglang_config"].get("decode") or {}).get("stream-interval", "")
                out = (sglang("prefill"), sglang("decode"), str(interval))
            elif be.get("trtllm_config"):
                def trtllm(role):
                    return str(((be["trtllm_config"].get(role) or {}).get("moe_config") or {}).get("backend", ""))
                out = (trtllm("prefill"), trtllm("decode"), "")
            break
        cache[key] = out
    return cache[key]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repo", required=True, help="a clone of SemiAnalysisAI/InferenceX")
    ap.add_argument("--until", default="2026-04-10", help="last commit date read (the sample's export: 2026-04-06)")
    ap.add_argument("--srt-slurm", default="", help="a clone of srt-slurm: each role's experts' kernel from its recipe")
    a = ap.parse_args()
    log = [line.split() for line in git(a.repo, "log", "--reverse", "--format=%H %cI", "--", CONFIG).splitlines()]
    log = [(h, utc(t)) for h, t in log if utc(t)[:10] <= a.until]
    open_since = {}  # entry -> (valid_from, commit)
    rows = []
    for commit, when in log:
        try:
            doc = yaml.safe_load(git(a.repo, "show", f"{commit}:{CONFIG}")) or {}
        except (subprocess.CalledProcessError, yaml.YAMLError) as e:
            print(f"{commit}: {CONFIG} unreadable, skipped: {e}", file=sys.stderr)
            continue
        now = set(entries(doc))
        for gone in [k for k in open_since if k not in now]:
            since, c = open_since.pop(gone)
            rows.append((since, when, c) + gone)
        for k in now:
            open_since.setdefault(k, (when, commit[:12]))
    rows += [(since, "", c) + k for k, (since, c) in open_since.items()]
    cache = {}
    rows = [r + recipe_facts(a.srt_slurm, r[-1], r[1] or f"{a.until}T23:59:59Z", cache) for r in rows]
    rows.sort(key=lambda r: (tuple(r[3:13]), r[0], str(r)))  # one order, whatever the hash seed
    w = csv.writer(sys.stdout, lineterminator="\n")
    w.writerow(COLUMNS)
    w.writerows(rows)
    print(f"{len(rows)} entries from {len(log)} commits ({log[0][1]} .. {log[-1][1]})", file=sys.stderr)


if __name__ == "__main__":
    main()
