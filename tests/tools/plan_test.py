#!/usr/bin/env python3
"""End-to-end checks of `costdsl plan`: the issue's command (aggregated + disaggregated
tables), JSON / CSV / SVG, the rate and concurrency loads, progress on stderr, and the
explanation when no deployment meets the SLA. No figure anywhere may be NaN or inf.

usage: plan_test.py COSTDSL CHECK_SVG_PY
"""
import csv
import json
import math
import os
import pathlib
import subprocess
import sys
import tempfile

from cli_checks import Checks

costdsl, check_svg = sys.argv[1], sys.argv[2]
root = pathlib.Path(__file__).resolve().parents[2]
checks = Checks(costdsl)
failures, run, check, finite_everywhere = checks.failures, checks.run, checks.check, checks.finite_everywhere
PLAN = ["plan", "--arch", "llama3_70b", "--gpu", "h200", "--gpus", "8", "--isl", "4000", "--osl", "500"]
SMALL = ["plan", "--arch", "llama3_8b", "--gpu", "h200", "--gpus", "2", "--isl", "1000", "--osl", "50"]


# The command: both modes, a table each, under the SLA.
r = run(*PLAN, "--ttft", "300", "--tpot", "20")
out = r.stdout
for needle in ("aggregated:", "disaggregated:", "parallel", "replicas", "gpus/worker", "batch", "concurrency",
               "tokens/s/gpu", "tokens/s/user", "TTFT ms p50 / p90 / p99", "SLA   p90: TTFT ≤ 300 ms, TPOT ≤ 20 ms"):
    check(needle in out, f"the issue's plan output lacks {needle!r}:\n{out}")
check("nan" not in out.lower() and "inf" not in out.replace("infer", "").lower(), f"NaN or inf in the table:\n{out}")
agg_rows = [l for l in out.splitlines() if l.strip()[:2].strip().isdigit() and " tp" in l]
check(len(agg_rows) >= 2, f"expected ranked rows in the tables:\n{out}")

j = json.loads(run(*PLAN, "--ttft", "300", "--tpot", "20", "--json").stdout or "{}")
finite_everywhere(j)
cands = j.get("candidates", [])
check(cands and {c["mode"] for c in cands} == {"aggregated", "disaggregated"}, "JSON must hold both modes' candidates")
for mode in ("aggregated", "disaggregated"):
    top = j.get("top", {}).get(mode, [])
    check(len(top) >= 1, f"JSON top.{mode} is empty")
    for i in top:
        c = cands[i]
        check(c["status"] == "meets" and c["ttft_ms"]["p90"] <= 300 and c["tpot_ms"]["p90"] <= 20,
              f"top {mode} candidate {i} does not meet the SLA: {c}")
        check(c["gpus"] <= 8 and c["gpus"] == c["replicas"] * c["unit_gpus"], f"GPU count wrong: {c}")
    tputs = [cands[i]["tokens_per_s_gpu"] for i in top]
    check(tputs == sorted(tputs, reverse=True), f"top.{mode} not sorted by tokens/s/GPU: {tputs}")
    front = j.get("pareto", {}).get(mode, [])
    users = [cands[i]["tokens_per_s_user"] for i in front]
    gpus = [cands[i]["tokens_per_s_gpu"] for i in front]
    check(users == sorted(users) and gpus == sorted(gpus, reverse=True),
          f"pareto.{mode} must rise in tokens/s/user while falling in tokens/s/GPU: {users} {gpus}")
    for i, c in enumerate(cands):  # nothing meeting the SLA beats a frontier point on both axes
        if c["mode"] == mode and c["status"] == "meets":
            beaten = any(cands[f]["tokens_per_s_user"] >= c["tokens_per_s_user"] and
                         cands[f]["tokens_per_s_gpu"] >= c["tokens_per_s_gpu"] for f in front)
            check(beaten, f"candidate {i} is not dominated by the {mode} frontier: {c}")
for c in cands:
    if c["mode"] == "disaggregated":
        check(c["transfer_ms"] > 0 and c["prefill"]["workers"] >= 1, f"disaggregated candidate lacks its hand-off: {c}")
    check(c["ttft_ms"]["p50"] <= c["ttft_ms"]["p90"] <= c["ttft_ms"]["p99"], f"TTFT percentiles out of order: {c}")

# Files: CSV rows = JSON candidates, SVG well-formed with a frontier per mode.
with tempfile.TemporaryDirectory() as d:
    d = pathlib.Path(d)
    run(*PLAN, "--ttft", "300", "--tpot", "20", "--csv", str(d / "p.csv"), "--svg", str(d / "p.svg"))
    rows = list(csv.DictReader(open(d / "p.csv"))) if (d / "p.csv").exists() else []
    check(len(rows) == len(cands), f"CSV has {len(rows)} rows, JSON {len(cands)} candidates")
    check(all(r["status"] in ("meets", "misses", "stopped_early") for r in rows), "CSV status column")
    for r in rows:
        for k, v in r.items():
            if k not in ("mode", "prefill_parallel", "parallel", "status") and v != "":
                check(math.isfinite(float(v)), f"CSV {k} = {v}")
    s = subprocess.run([sys.executable, check_svg, str(d / "p.svg")], capture_output=True, text=True)
    check(s.returncode == 0, "plan SVG: " + s.stdout + s.stderr)
    text = (d / "p.svg").read_text() if (d / "p.svg").exists() else ""
    for needle in ('data-series="aggregated"', 'data-series="disaggregated"', 'class="frontier"', "tokens/s/user"):
        check(needle in text, f"plan SVG lacks {needle}")

# Loads: a rate and a concurrency; one mode each.
j = json.loads(run(*SMALL, "--rate", "20", "--mode", "agg", "--requests", "60", "--json").stdout or "{}")
finite_everywhere(j)
check(j and all(c["mode"] == "aggregated" and c["rate_per_replica"] > 0 for c in j["candidates"]),
      "--rate --mode agg: aggregated candidates with a rate")
j = json.loads(run(*SMALL, "--concurrency", "8", "--mode", "disagg", "--json").stdout or "{}")
finite_everywhere(j)
check(j and all(c["mode"] == "disaggregated" and abs(c["concurrency"] - 8) < 1e-9 for c in j["candidates"]),
      "--concurrency 8 --mode disagg: every candidate at concurrency 8")

# Closed-loop start: benchmarks send every client's first request at once, and equal
# requests then stay in lockstep (each round's prefills share an iteration: every TTFT the
# same, that of the whole round's prefill); staggered clients queue behind one prefill each.
LOCKSTEP = [*SMALL, "--concurrency", "8", "--mode", "agg", "--max-batch", "8", "--token-budgets", "8192", "--hp", "1",
            "--json"]
together = json.loads(run(*LOCKSTEP).stdout or "{}")
staggered = json.loads(run(*LOCKSTEP, "--client-start", "staggered").stdout or "{}")
check(together.get("load", {}).get("client_start") == "together" and
      staggered.get("load", {}).get("client_start") == "staggered", "plan --json: load.client_start")
by_layout = lambda j: {(c["parallel"], c["replicas"]): c for c in j.get("candidates", [])}
t, s = by_layout(together), by_layout(staggered)
check(t and t.keys() == s.keys(), f"--client-start: the same deployments either way: {t.keys()} / {s.keys()}")
for key, c in t.items():
    ttft = c["ttft_ms"]
    check(abs(ttft["p99"] - ttft["p50"]) <= 1e-6 * ttft["p50"], f"{key} together: lockstep TTFTs all equal: {ttft}")
    check(ttft["p50"] > 2 * s[key]["ttft_ms"]["p50"], f"{key}: a lockstep round's TTFT is the batch's prefill, above "
          f"a staggered client's: {ttft} / {s[key]['ttft_ms']}")

# Progress on stderr once the search has run past the threshold (a second by default; 0 and
# 60 here, so that the test does not depend on this machine's speed), never on stdout.
env = dict(os.environ, COSTDSL_PROGRESS_AFTER_S="0")
r = run(*SMALL, "--ttft", "500", env=env)
check("plan: " in r.stderr and "jobs" in r.stderr, f"no progress on stderr: {r.stderr!r}")
check("jobs," not in r.stdout, "progress leaked to stdout")
r = run(*SMALL, "--ttft", "500", env=dict(os.environ, COSTDSL_PROGRESS_AFTER_S="60"))
check(r.stderr == "", f"a search shorter than the threshold must print no progress: {r.stderr!r}")

# Nothing meets the SLA: which target, the lowest value reached, the nearest deployments.
r = run(*SMALL, "--ttft", "1", "--tpot", "50")
for needle in ("aggregated: none of", "TTFT p90 ≤ 1 ms: met by none; the lowest is", "TPOT p90 ≤ 50 ms: met by",
               "nearest (largest percentile / limit first):"):
    check(needle in r.stdout, f"nothing-fits output lacks {needle!r}:\n{r.stdout}")
j = json.loads(run(*SMALL, "--ttft", "1", "--json").stdout or "{}")
check(j and j["top"]["aggregated"] == [] and j["pareto"]["aggregated"] == [], "nothing fits: empty top and frontier")

# A MoE arch searches ep and attention tp.
j = json.loads(run("plan", "--arch", "qwen3_30b_a3b", "--gpu", "h200", "--gpus", "4", "--isl", "1000", "--osl", "50",
                   "--tpot", "30", "--mode", "agg", "--json").stdout or "{}")
finite_everywhere(j)
check(j and any(c["ep"] == 4 for c in j["candidates"]) and any("dp" in c["parallel"] for c in j["candidates"]),
      "qwen3_30b_a3b on 4 GPUs: expected ep 4 deployments labelled tpXdpYepZ")
# ... and TP experts: ep 1 over tp > 1 GPUs, one attention group, every expert split tp ways.
tp_experts = [c for c in j.get("candidates", []) if c["ep"] == 1 and c["tp"] > 1]
check({c["parallel"] for c in tp_experts} == {"tp2moetp2", "tp4moetp4"} and
      all(c["unit_gpus"] == c["tp"] for c in tp_experts),
      f"qwen3_30b_a3b on 4 GPUs: expected TP-expert deployments tp2moetp2, tp4moetp4 on tp GPUs: {tp_experts[:2]}")

# The issue-15 families through plan, their family inferred from the config.json: Mixtral
# searches ep like Qwen3-MoE, Qwen3 dense searches tp.
j = json.loads(run("plan", "--model-config", str(root / "data/models/mixtral_8x7b.json"), "--gpu", "h200", "--gpus",
                   "4", "--isl", "1000", "--osl", "50", "--tpot", "30", "--mode", "agg", "--json").stdout or "{}")
finite_everywhere(j)
check(j and any(c["ep"] == 4 for c in j["candidates"]), "mixtral_8x7b on 4 GPUs: expected ep 4 deployments")
j = json.loads(run("plan", "--model-config", str(root / "data/models/gpt_oss_20b.json"), "--gpu", "h200", "--gpus",
                   "4", "--isl", "1000", "--osl", "50", "--tpot", "30", "--mode", "agg", "--json").stdout or "{}")
finite_everywhere(j)
check(j and any(c["ep"] == 4 for c in j["candidates"]), "gpt_oss_20b on 4 GPUs: expected ep 4 deployments")
j = json.loads(run("plan", "--arch", "qwen3_8b", "--gpu", "h200", "--gpus", "2", "--isl", "1000", "--osl", "50",
                   "--tpot", "30", "--mode", "agg", "--json").stdout or "{}")
finite_everywhere(j)
check(j and j["candidates"] and all(c["ep"] == 1 for c in j["candidates"]), "qwen3_8b is dense: no ep deployments")

# --hop-b (issue 20): the searched hp > 1 decode workers take HOP-B; their exchange's exposed
# time is the best of the serial and sliced schedules, so no deployment's decode gets slower.
# Long prompts on GB200 (NVLink domain of 72): the hp 2 × tp 8 decode worker wins its GPU count.
HELIX = ["plan", "--arch", "llama3_405b", "--gpu", "gb200", "--gpus", "32", "--isl", "100000", "--osl", "8",
         "--mode", "disagg", "--hp", "2", "--token-budgets", "16384", "--max-batch", "2", "--json"]
serial = json.loads(run(*HELIX).stdout or "{}")
hop_b = json.loads(run(*HELIX, "--hop-b").stdout or "{}")
finite_everywhere(hop_b)
key = lambda c: (c["parallel"], c["prefill"]["parallel"], c["workers"], c["batch"], c["token_budget"])
before = {key(c): c for c in serial.get("candidates", [])}
after = {key(c): c for c in hop_b.get("candidates", [])}
check(before and before.keys() == after.keys(), "--hop-b must simulate the same deployments")
check(any(c["hp"] == 2 for c in after.values()), "--hp 2 --hop-b: expected hp 2 decode workers")
for k, c in after.items():
    if k in before and c["hp"] == 2:
        check(c["tpot_ms"]["mean"] <= before[k]["tpot_ms"]["mean"] * (1 + 1e-9),
              f"{k}: --hop-b made decode slower ({c['tpot_ms']['mean']} > {before[k]['tpot_ms']['mean']} ms)")

# DeepSeek-V3 (MLA) takes hp too (issue 20): its KV-parallel decode workers are tp 1 with
# dp = ep / hp attention groups of hp GPUs; prefill workers stay hp 1.
DSV3 = ["plan", "--arch", "deepseek_v3", "--gpu", "gb200", "--gpus", "32", "--isl", "100000", "--osl", "8",
        "--mode", "disagg", "--hp", "2", "--token-budgets", "16384", "--max-batch", "2", "--json"]
j = json.loads(run(*DSV3).stdout or "{}")
finite_everywhere(j)
mla_hp = [c for c in j.get("candidates", []) if c["hp"] == 2]
check(mla_hp, "deepseek_v3 --hp 2: expected hp 2 decode workers")
for c in mla_hp:
    check(c["tp"] == 1 and c["ep"] % 2 == 0, f"{c['parallel']}: an MLA hp worker is tp 1 with hp dividing ep")
    check(c["parallel"] == f"tp1hp2dp{c['ep'] // 2}ep{c['ep']}", f"{c['parallel']}: label must show hp and dp = ep / hp")
    check(c["prefill"]["parallel"].find("hp") < 0, f"{c['prefill']['parallel']}: prefill workers are hp 1")
# --hop-b on them: the same deployments, no decode slower (MLA's exchange under HOP-B).
j_hop_b = json.loads(run(*DSV3, "--hop-b").stdout or "{}")
finite_everywhere(j_hop_b)
before = {key(c): c for c in j.get("candidates", [])}
after = {key(c): c for c in j_hop_b.get("candidates", [])}
check(before and before.keys() == after.keys(), "deepseek_v3 --hop-b must simulate the same deployments")
for k, c in after.items():
    if k in before:
        check(c["tpot_ms"]["mean"] <= before[k]["tpot_ms"]["mean"] * (1 + 1e-9),
              f"deepseek_v3 {k}: --hop-b made decode slower")

checks.finish("plan cli")
