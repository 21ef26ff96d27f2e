#!/usr/bin/env python3
"""Invariants of serve_sim's --json report, on a synthetic workload and on a trace.

usage: check_output.py SERVE_SIM TRACE_CSV [synthetic-workload args...]
"""
import json
import os
import subprocess
import sys
import tempfile


def run(exe, args):
    out = subprocess.run([exe, *args, "--json"], check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def check(report, what):
    errors = []

    def expect(cond, msg):
        if not cond:
            errors.append(f"{what}: {msg}")

    expect(report["completed"] == report["requests"], f"completed {report['completed']} != requests {report['requests']}")
    expect(report["rejected"] == 0, f"{report['rejected']} rejected")
    expect(report["ttft_le_e2e"], "some request has TTFT > e2e")
    for q in ("p50", "p90", "p99"):
        expect(0 < report["ttft_s"][q] <= report["e2e_s"][q], f"TTFT {q} not in (0, e2e {q}]")
    expect(report["ttft_s"]["p50"] <= report["ttft_s"]["p90"] <= report["ttft_s"]["p99"], "TTFT percentiles not ordered")
    for k in ("output_tokens_per_s", "total_tokens_per_s", "requests_per_s"):
        expect(report["throughput"][k] > 0, f"throughput {k} not positive")
    expect(0 < report["kv"]["used_peak"] <= report["kv"]["reserved_peak"] <= 1, "KV peaks not in (0, 1] or used > reserved")
    expect(report["iterations"] > 0 and report["simulator"]["ns_per_iteration"] > 0, "no iterations")
    expect(report["busy_s"] <= report["sim_time_s"] * (1 + 1e-12), "busy time exceeds the clock")
    return errors


def check_impossible(exe):
    """Every request larger than the KV cache: a clear error (exit 2), never a report of NaN rates."""
    errors = []
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "huge.csv")
        with open(path, "w") as f:
            f.write("arrival_s,input_tokens,output_tokens\n0,50000000,10\n0,60000000,5\n")
        for extra in ([], ["--json"]):
            r = subprocess.run([exe, "--trace", path, *extra], capture_output=True, text=True)
            out = r.stdout + r.stderr
            if r.returncode != 2:
                errors.append(f"impossible trace {extra}: exit {r.returncode}, expected 2: {out[-500:]}")
            if "no request can run: all 2 need more KV than the cache holds" not in out:
                errors.append(f"impossible trace {extra}: message does not say why: {out[-500:]}")
            if "nan" in out.lower():
                errors.append(f"impossible trace {extra}: prints NaN: {out[-500:]}")
    return errors


def check_hp(exe):
    """hp > 1 on the aggregated worker: exit 2 naming the flag and pointing at the disaggregated search."""
    r = subprocess.run([exe, "--hp", "2"], capture_output=True, text=True)
    out = r.stdout + r.stderr
    if r.returncode != 2 or "--hp 2: serve_sim runs one aggregated worker" not in out or \
            "costdsl plan --mode disagg --hp 2" not in out:
        return [f"--hp 2: exit {r.returncode}, expected 2 and the decode-only rule: {out[-500:]}"]
    return []


def main():
    exe, trace, workload = sys.argv[1], sys.argv[2], sys.argv[3:]
    synthetic = run(exe, workload)
    errors = check(synthetic, "synthetic")
    traced = run(exe, ["--trace", trace])
    errors += check(traced, "trace")
    with open(trace) as f:
        rows = [line.strip().split(",") for line in f.readlines()[1:] if line.strip()]
    if traced["requests"] != len(rows):
        errors.append(f"trace: {traced['requests']} requests, file has {len(rows)}")
    if traced["prefill_tokens"] != sum(int(r[1]) for r in rows):
        errors.append("trace: prefill tokens do not add up to the trace's input tokens")
    if traced["output_tokens"] != sum(int(r[2]) for r in rows):
        errors.append("trace: output tokens do not add up to the trace's output tokens")
    errors += check_impossible(exe)
    errors += check_hp(exe)
    for e in errors:
        print("FAIL", e)
    print(f"synthetic: {synthetic['completed']} requests, TTFT p50 {synthetic['ttft_s']['p50'] * 1e3:.1f} ms; "
          f"trace: {traced['completed']} requests; {len(errors)} failure(s)")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
