#!/usr/bin/env python3
"""End-to-end checks of `costdsl simulate` (one pinned deployment under one load) as
behaviour: a pinned run gives plan's row for the same layout and load (aggregated, with
replicas, MoE with DP attention, disaggregated); more clients than the batch cap queue
(TTFT rises); more decode workers never slow decoding; the JSON agrees with the text;
rate and trace loads run; the kernel times say whether tables or the roofline answered.
No figure may be NaN or inf.

usage: simulate_test.py COSTDSL
"""
import json
import math
import pathlib
import sys
import tempfile

from cli_checks import Checks

costdsl = sys.argv[1]
checks = Checks(costdsl)
failures, run, check, finite_everywhere = checks.failures, checks.run, checks.check, checks.finite_everywhere
LLAMA = ["--arch", "llama3_8b", "--gpu", "h100", "--isl", "1000", "--osl", "100"]
RESULT_KEYS = ("ttft_ms", "tpot_ms", "latency_s", "tokens_per_s_gpu", "tokens_per_s_user", "tokens_per_s",
               "measured", "finished", "iterations", "concurrency", "replicas", "unit_gpus", "gpus", "batch",
               "token_budget", "parallel")


def simulate_json(*args):
    r = run("simulate", *args, "--json")
    try:
        j = json.loads(r.stdout)
    except json.JSONDecodeError:
        failures.append(f"simulate {' '.join(args)} --json: not JSON:\n{r.stdout[:800]}{r.stderr[:800]}")
        return {}
    finite_everywhere(j)
    return j


def plan_candidates(*args):
    r = run("plan", *args, "--json")
    try:
        return json.loads(r.stdout)["candidates"]
    except (json.JSONDecodeError, KeyError):
        failures.append(f"plan {' '.join(args)} --json: no candidates:\n{r.stdout[:800]}{r.stderr[:800]}")
        return []


def same_as_plan_row(name, sim, row, keys=RESULT_KEYS):
    for k in keys:
        check(sim.get(k) == row.get(k), f"{name}: simulate's {k} {sim.get(k)} != plan's {row.get(k)}")


# Aggregated, pinned to a layout plan simulated: the same row, figure for figure. plan
# without an SLA runs every batch cap at concurrency = the cap per replica, simulate's default.
# simulate measures a benchmark's run by default (a drained warm-up, 20 rounds), plan a steady
# state (the first round dropped, 3 rounds): each is told the other's once.
BENCH = ["--warmup", "drained", "--rounds", "20"]
STEADY = ["--warmup", "first-round", "--rounds", "3"]
rows = plan_candidates(*LLAMA, "--gpus", "2", "--mode", "agg", "--token-budgets", "8192", "--max-batch", "8", *BENCH)
for batch in (2, 8):
    row = next((c for c in rows if c["tp"] == 1 and c["batch"] == batch), None)
    check(row is not None and row["replicas"] == 2, f"plan has no tp1 ×2 row at batch {batch}: {rows}")
    if row:
        sim = simulate_json(*LLAMA, "--tp", "1", "--replicas", "2", "--batch", str(batch), "--token-budget", "8192")
        same_as_plan_row(f"agg tp1 ×2 batch {batch}", sim, row)
        check(sim.get("load", {}).get("concurrency") == 2 * batch, f"default concurrency is batch × replicas: {sim}")
row = next((c for c in rows if c["tp"] == 2 and c["batch"] == 4), None)
if row:
    same_as_plan_row("agg tp2 batch 4", simulate_json(*LLAMA, "--tp", "2", "--batch", "4", "--token-budget", "8192"),
                     row)

# A DP-attention MoE worker (ep 2 = 2 DP groups of tp 1): the batch cap and budget are the
# worker's, as plan's columns.
MOE = ["--arch", "qwen3_30b_a3b", "--gpu", "h100", "--isl", "1000", "--osl", "50"]
rows = plan_candidates(*MOE, "--gpus", "2", "--mode", "agg", "--token-budgets", "2048", "--max-batch", "4")
row = next((c for c in rows if c["tp"] == 1 and c["ep"] == 2 and c["batch"] == 4), None)
check(row is not None, f"plan has no tp1dp2ep2 batch-4 row: {[(c['parallel'], c['batch']) for c in rows]}")
if row:
    same_as_plan_row("MoE tp1dp2ep2 batch 4",
                     simulate_json(*MOE, "--tp", "1", "--ep", "2", "--batch", "4", "--token-budget", "2048", *STEADY),
                     row)

# Disaggregated: one of plan's rows pinned (its prefill budget and batch are plan's
# --token-budgets and --max-batch per group).
rows = plan_candidates(*LLAMA, "--gpus", "4", "--mode", "disagg", "--token-budgets", "2048", "--max-batch", "8",
                       "--hp", "1", *BENCH)
row = next((c for c in rows if c["prefill"]["workers"] == 1 and c["workers"] == 2 and c["batch"] == 4), None)
check(row is not None, "plan has no 1 prefill + 2 decode worker row at batch 4")
if row:
    sim = simulate_json(*LLAMA, "--mode", "disagg", "--prefill-tp", str(row["prefill"]["tp"]), "--prefill-workers",
                        "1", "--tp", str(row["tp"]), "--decode-workers", "2", "--batch", "4", "--token-budget",
                        "2048", "--prefill-batch", "8", "--replicas", str(row["replicas"]))
    same_as_plan_row("disagg 1P + 2D batch 4", sim, row, RESULT_KEYS + ("transfer_ms", "workers"))

# More clients than the batch cap: the extra requests wait for a slot, so TTFT rises.
SAT = [*LLAMA, "--tp", "1", "--batch", "4"]
c4, c8 = simulate_json(*SAT, "--concurrency", "4"), simulate_json(*SAT, "--concurrency", "8")
if c4 and c8:
    check(c8["ttft_ms"]["mean"] > 1.5 * c4["ttft_ms"]["mean"] and c8["ttft_ms"]["p90"] > c4["ttft_ms"]["p90"],
          f"doubling concurrency past the batch cap must raise TTFT: {c4['ttft_ms']} -> {c8['ttft_ms']}")
    check(c8["tokens_per_s"] <= c4["tokens_per_s"] * 1.05,
          f"a saturated batch cap cannot gain throughput from queued clients: {c4['tokens_per_s']} -> "
          f"{c8['tokens_per_s']}")

# Disaggregated: a second decode worker splits the same clients, so TPOT falls or stays.
DIS = [*LLAMA, "--mode", "disagg", "--prefill-workers", "1", "--batch", "16", "--concurrency", "16"]
d1, d2 = simulate_json(*DIS, "--decode-workers", "1"), simulate_json(*DIS, "--decode-workers", "2")
if d1 and d2:
    check(d2["tpot_ms"]["mean"] <= d1["tpot_ms"]["mean"] and d2["tpot_ms"]["p90"] <= d1["tpot_ms"]["p90"],
          f"more decode workers must not raise TPOT: {d1['tpot_ms']} -> {d2['tpot_ms']}")
    check(d2["gpus"] == d1["gpus"] + 1, f"a second tp1 decode worker adds one GPU: {d1['gpus']} -> {d2['gpus']}")

# The text and the JSON of one run agree; the text is a table with the measured counts.
ARGS = [*LLAMA, "--tp", "1", "--batch", "8", "--concurrency", "12"]
text = run("simulate", *ARGS).stdout
j = simulate_json(*ARGS)
for needle in ("deployment  aggregated tp1", "closed loop, 12 clients", "from an idle engine, the clients' first "
               "requests included", "mean       p50       p90       p99", "tokens/s"):
    check(needle in text, f"the text lacks {needle!r}:\n{text}")
cells = {l.split()[0] + " " + l.split()[1]: [float(x) for x in l.split()[2:]] for l in text.splitlines()
         if l.startswith(("TTFT ms", "TPOT ms", "latency s"))}
for label, key, scale, decimals in (("TTFT ms", "ttft_ms", 1, 1), ("TPOT ms", "tpot_ms", 1, 2),
                                    ("latency s", "latency_s", 1, 3)):
    want = [round(j.get(key, {}).get(q, math.nan) * scale, decimals) for q in ("mean", "p50", "p90", "p99")]
    check(cells.get(label) == want, f"text {label} {cells.get(label)} != JSON {want}")
check(f"{j.get('measured')} requests per replica" in text and f"{j.get('tokens_per_s_gpu', 0):.1f} per GPU" in text,
      f"the text's counts and throughput must be the JSON's:\n{text}")
check(j.get("warmup") == 0 and j.get("measured") == 240 and j.get("load", {}).get("warmup") == "drained" and
      j["load"].get("rounds") == 20, f"closed loop: a drained warm-up, 20 rounds measured: {j}")
steady = simulate_json(*ARGS, *STEADY)
check(steady.get("warmup") == 12 and steady.get("measured") == 36 and "warm-up of 12 dropped (the first round" in
      run("simulate", *ARGS, *STEADY).stdout, f"--warmup first-round: a round dropped, 3 rounds measured: {steady}")
# A drained warm-up measures the clients' first requests too, sent together to an idle engine:
# the last of them waits behind the others' prompts, longer than any request of the steady
# loop; one client alone finds the engine idle either way.
if j and steady:
    check(j["ttft_ms"]["p99"] > steady["ttft_ms"]["p99"],
          f"the drained warm-up's first round queues: {j['ttft_ms']} / {steady['ttft_ms']}")
solo = [*LLAMA, "--tp", "1", "--batch", "1", "--framework", "vllm"]
s_b, s_s = simulate_json(*solo), simulate_json(*solo, *STEADY)
if s_b and s_s:
    check(abs(s_b["ttft_ms"]["mean"] - s_s["ttft_ms"]["mean"]) < 1e-9,
          f"one client: the same TTFT under either warm-up: {s_b['ttft_ms']} / {s_s['ttft_ms']}")

# Poisson arrivals: seeded, the same figures every run; a different seed changes them.
RATE = [*LLAMA, "--tp", "1", "--batch", "16", "--rate", "5", "--requests", "100"]
r1, r2, r3 = simulate_json(*RATE), simulate_json(*RATE), simulate_json(*RATE, "--seed", "7")
check(r1 == r2 and r1.get("load", {}).get("kind") == "rate", "a rate load must be reproducible")
check(r1.get("ttft_ms") != r3.get("ttft_ms"), "another seed must give another arrival stream")
check(r1.get("measured") == 100 and r1.get("warmup") == 10, f"--requests 100 after 10 of warm-up: {r1}")

# A trace: its own arrivals and lengths, dealt over the replicas.
with tempfile.TemporaryDirectory() as d:
    trace = pathlib.Path(d) / "trace.csv"
    lines = ["arrival_s,input_tokens,output_tokens"]
    # Lengths repeat in pairs, so that both replicas of two get the same requests.
    lines += [f"{0.01 * i:.3f},{400 + 97 * (i // 2 % 9)},{20 + 5 * (i // 2 % 4)}" for i in range(60)]
    trace.write_text("\n".join(lines) + "\n")
    t1 = simulate_json("--arch", "llama3_8b", "--gpu", "h100", "--tp", "1", "--batch", "8", "--trace", str(trace))
    t2 = simulate_json("--arch", "llama3_8b", "--gpu", "h100", "--tp", "1", "--batch", "8", "--trace", str(trace),
                       "--replicas", "2")
    check(t1.get("load", {}).get("kind") == "trace" and t1.get("warmup") == 6 and t1.get("measured") == 54,
          f"a trace of 60 requests: 6 of warm-up, 54 measured: {t1}")
    check(t2.get("warmup", 0) + t2.get("measured", 0) == 30, f"two replicas take 30 requests each: {t2}")
    if t1 and t2:
        check(t2["ttft_ms"]["mean"] <= t1["ttft_ms"]["mean"], "half the arrivals per replica cannot queue more")

# Kernel times: H200 ships no measured tables (roofline), H100 does.
k200 = simulate_json("--arch", "llama3_8b", "--gpu", "h200", "--tp", "1", "--batch", "4", "--isl", "1000", "--osl",
                     "50")
check(k200.get("kernel_times", {}).get("source") == "roofline", f"h200: {k200.get('kernel_times')}")
check(c4.get("kernel_times", {}).get("source") in ("measured", "mixed") and
      c4["kernel_times"]["measured_leaves"] > 0, f"h100: {c4.get('kernel_times')}")
text = run("simulate", "--arch", "llama3_8b", "--gpu", "h200", "--tp", "1", "--batch", "4", "--isl", "1000",
           "--osl", "50").stdout
check("kernel times: roofline" in text, f"the text must say the roofline timed the kernels:\n{text}")

# --framework: the scheduler of a serving framework. SGLang runs a round's prompts in
# prefill-only batches while the decoders wait, so 32 clients stay in lockstep and wait for
# each other's prefills; vLLM mixes prompts into decode iterations and its clients drift
# apart: a far shorter TTFT on the same GPU and model. The engine is in the JSON and text.
FW = ["--arch", "llama3_8b", "--gpu", "h100", "--isl", "2000", "--osl", "100", "--batch", "32"]
sg, vl = simulate_json(*FW, "--framework", "sglang"), simulate_json(*FW, "--framework", "vllm")
check(sg.get("engine", {}).get("batching") == "prefill-first" and vl.get("engine", {}).get("batching") == "mixed",
      f"engines: {sg.get('engine')} / {vl.get('engine')}")
check(sg.get("token_budget") == 8192 and vl.get("token_budget") == 8192, "both frameworks' H100 budget is 8192")
if sg and vl:
    check(sg["ttft_ms"]["mean"] > 1.5 * vl["ttft_ms"]["mean"],
          f"sglang's lockstep rounds wait longer for a first token: {sg['ttft_ms']} vs {vl['ttft_ms']}")
# An overridden knob is the framework's with that one changed: sglang with mixed batches is vllm's
# scheduler but for the KV block, the reserve and the token budget; the lagged first token adds
# a decode iteration to a single request's TTFT and nothing to its latency.
one = ["--arch", "llama3_8b", "--gpu", "h100", "--isl", "1000", "--osl", "20", "--batch", "1"]
t_on, t_off = (simulate_json(*one, "--framework", "trtllm", "--lagged-first-token", v) for v in ("on", "off"))
if t_on and t_off:
    check(t_on["ttft_ms"]["p50"] > t_off["ttft_ms"]["p50"] and
          abs(t_on["latency_s"]["p50"] - t_off["latency_s"]["p50"]) < 1e-12,
          f"a lagged first token: later TTFT, same latency: {t_on['ttft_ms']} / {t_off['ttft_ms']}")
text = run("simulate", *FW, "--framework", "trtllm").stdout
check("engine      trtllm 1.2 defaults: mixed batches, whole-prompt prefill, KV block 32" in text and
      "batches formed one iteration ahead" in text and "first token one iteration late" in text,
      f"the text names the engine:\n{text}")
# Scheduling ahead: one client alone finds the engine idle every time (no change); 16 clients
# of a closed loop reach a busy engine and wait an iteration more for their first token.
busy = ["--arch", "llama3_8b", "--gpu", "h100", "--isl", "1000", "--osl", "64", "--batch", "16", "--framework", "vllm"]
o_on, o_off = (simulate_json(*busy, "--overlap-scheduling", v) for v in ("on", "off"))
if o_on and o_off:
    check(o_on["engine"]["overlap_scheduling"] and not o_off["engine"]["overlap_scheduling"] and
          o_on["ttft_ms"]["mean"] > o_off["ttft_ms"]["mean"],
          f"scheduling ahead: later first tokens on a busy engine: {o_on['ttft_ms']} / {o_off['ttft_ms']}")
# Batch waiting: 16 clients at once on TensorRT-LLM; held prompts wait for fuller iterations,
# which changes every first token (the exact law is tests/serve/test_framework.cpp's), and the
# engine says so.
w_on = simulate_json(*busy[:-1], "trtllm", "--batch-wait-iters", "20", "--batch-wait-ratio", "0.9")
w_off = simulate_json(*busy[:-1], "trtllm")
if w_on and w_off:
    check(w_on["engine"]["batch_wait_iters"] == 20 and w_on["engine"]["batch_wait_tokens_ratio"] == 0.9 and
          w_off["engine"]["batch_wait_iters"] == 0 and w_on["ttft_ms"] != w_off["ttft_ms"],
          f"batch waiting: other first tokens: {w_on.get('ttft_ms')} / {w_off.get('ttft_ms')}")
text = run("simulate", *busy[:-1], "trtllm", "--batch-wait-iters", "20", "--batch-wait-ratio", "0.9").stdout
check("prompts beside decodes held up to 20 iterations or until 90% of the budget" in text,
      f"the text names batch waiting:\n{text}")
# SGLang's streaming every N tokens and receiving every N loops: a client sees its first
# token with the 30th (later, the request's end unchanged), and a busy engine takes new
# requests late.
s1 = simulate_json(*busy[:-1], "sglang")
s30 = simulate_json(*busy[:-1], "sglang", "--stream-interval", "30")
r10 = simulate_json(*busy[:-1], "sglang", "--recv-interval", "10")
if s1 and s30 and r10:
    check(s30["engine"]["stream_interval"] == 30 and s1["engine"]["stream_interval"] == 1 and
          s30["ttft_ms"]["mean"] > s1["ttft_ms"]["mean"] and
          abs(s30["latency_s"]["mean"] - s1["latency_s"]["mean"]) < 1e-12,
          f"stream interval: later first tokens, same latency: {s30.get('ttft_ms')} / {s1.get('ttft_ms')}")
    check(r10["engine"]["recv_interval"] == 10 and r10["ttft_ms"] != s1["ttft_ms"],
          f"recv interval: other first tokens: {r10.get('ttft_ms')} / {s1.get('ttft_ms')}")
a_on, a_off = (simulate_json(*one, "--framework", "vllm", "--overlap-scheduling", v) for v in ("on", "off"))
if a_on and a_off:
    check(a_on["ttft_ms"] == a_off["ttft_ms"], f"scheduling ahead: an idle engine takes a request at once: "
          f"{a_on['ttft_ms']} / {a_off['ttft_ms']}")

checks.finish("simulate")
