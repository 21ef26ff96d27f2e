#!/usr/bin/env python3
"""Fit the analytic roofline's parameters to real measurements on six GPUs.

Usage: scripts/calibrate_roofline.py [CALIBRATION_DIR] [--out data/roofline.json] [--rows N] [--no-logo]
                                     [--costdsl build/costdsl]

CALIBRATION_DIR defaults to ../shared/calibration relative to the repo root; when it is
absent the script says so and exits 0 (nothing to fit). Standard library only, plus the
built costdsl CLI (meson compile -C build costdsl).

The model is costdsl's own. Every prediction comes from `costdsl roofline serve`
(tools/roofline_server.hpp): it reads NVIDIA aiconfigurator's tables for h100_sxm,
b200_sxm, a100_sxm, gb200, b300_sxm, l40s with the importer's mapping (`costdsl import
aiconfigurator`) and Microsoft vidur's H100 elementwise and send/recv medians, and times
each row with its kernel's roofline() under the parameters this script sends: the code
every analytic leaf runs, so no formula exists here. This script chooses the rows (a
seeded sample per GPU), packs the parameters, runs Nelder-Mead and writes the result.
Per-GPU figures (peaks, bandwidths, SM count) come from data/gpus.json; the parameters
are shared by every GPU.

For each family fitted on the six GPUs (gemm, attention, all-reduce) the script first
fits on five GPUs and tests on the sixth, for each GPU in turn (leave one GPU out), and
prints median / p90 |relative error| and the bias (median signed error) per held-out
GPU: the accuracy on a GPU the model has never seen. Then it fits on all six and writes
data/roofline.json.
"""
import argparse
import json
import math
import os
import random
import statistics
import subprocess
import sys
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GPUS = ["h100_sxm", "b200_sxm", "a100_sxm", "gb200", "b300_sxm", "l40s"]

# Not fitted: written to data/roofline.json as they are (and sent with every all-reduce
# evaluation, so the fit sees the values it writes).
CUSTOM_MAX_BYTES = 8388608.0  # the frameworks' default custom all-reduce buffer
CUSTOM_MAX_GPUS = 8.0
QUANTIZE_EFF_MAX = 0.8  # the activation quantize before an fp8 GEMM: only its size scale is fitted
# Not measured: generic elementwise ops and the KV append keep aiconfigurator's constants
# (0.8 of HBM bandwidth + 3 us), with the norm fit's saturation size.
GENERIC_EFF_MAX, GENERIC_FLOOR_S = 0.8, 3e-6


# ----------------------------------------------------------------- costdsl's roofline
class CostdslRoofline:
    """`costdsl roofline serve`: the rows read once, one JSON request and answer per line."""

    def __init__(self, exe, calib, gpus):
        self.requests = 0
        self.proc = subprocess.Popen([exe, "roofline", "serve", calib, "--gpus", ",".join(gpus)],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)

    def ask(self, request):
        self.requests += 1
        self.proc.stdin.write(json.dumps(request, separators=(",", ":")) + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:  # it said why on stderr (a missing table folder, a malformed table)
            raise SystemExit(f"costdsl roofline serve stopped (exit {self.proc.wait()})")
        answer = json.loads(line)
        if "error" in answer:
            raise RuntimeError(f"costdsl roofline serve: {answer['error']}")
        return answer

    def close(self):
        self.proc.stdin.close()
        self.proc.wait()

    def groups(self):
        return self.ask({"op": "groups"})

    def rows(self, groups):
        return self.ask({"op": "rows", "groups": groups})

    def subset(self, name, ids, weights=None):
        req = {"op": "subset", "name": name, "ids": ids}
        if weights is not None:
            req["weights"] = weights
        self.ask(req)
        return name

    def loss(self, params, subset, kind):
        return self.ask({"op": "eval", "params": params, "subset": subset, "out": kind})["loss"]

    def predict(self, params, ids):
        return self.ask({"op": "eval", "params": params, "ids": ids, "out": "pred"})["pred"] if ids else []


class Table:
    """The rows' columns as costdsl listed them: gpu, group, measured_s, flops by row id."""

    def __init__(self, srv, groups):
        r = srv.rows(groups)
        self.gpus, self.groups = r["gpus"], r["groups"]
        self.measured, self.flops, self.by = {}, {}, {}
        for i, g, grp, t, f in zip(r["id"], r["gpu"], r["group"], r["measured_s"], r["flops"]):
            self.measured[i], self.flops[i] = t, f
            self.by.setdefault((self.gpus[g], self.groups[grp]), []).append(i)

    def select(self, gpu, groups):
        """The rows of these groups on one GPU, in table order (row ids are)."""
        return sorted(i for grp in groups for i in self.by.get((gpu, grp), []))


# ----------------------------------------------------------------- fitting tools
def nelder_mead(f, x0, step=0.3, iters=400, tol=1e-9):
    n = len(x0)
    pts = [list(x0)]
    for i in range(n):
        x = list(x0)
        x[i] += step
        pts.append(x)
    vals = [f(x) for x in pts]
    for _ in range(iters):
        order = sorted(range(n + 1), key=lambda i: vals[i])
        pts = [pts[i] for i in order]
        vals = [vals[i] for i in order]
        if abs(vals[-1] - vals[0]) < tol:
            break
        c = [sum(p[j] for p in pts[:-1]) / n for j in range(n)]
        xr = [c[j] + (c[j] - pts[-1][j]) for j in range(n)]
        fr = f(xr)
        if fr < vals[0]:
            xe = [c[j] + 2 * (c[j] - pts[-1][j]) for j in range(n)]
            fe = f(xe)
            pts[-1], vals[-1] = (xe, fe) if fe < fr else (xr, fr)
        elif fr < vals[-2]:
            pts[-1], vals[-1] = xr, fr
        else:
            xc = [c[j] + 0.5 * (pts[-1][j] - c[j]) for j in range(n)]
            fc = f(xc)
            if fc < vals[-1]:
                pts[-1], vals[-1] = xc, fc
            else:
                for i in range(1, n + 1):
                    pts[i] = [pts[0][j] + 0.5 * (pts[i][j] - pts[0][j]) for j in range(n)]
                    vals[i] = f(pts[i])
    i = min(range(n + 1), key=lambda i: vals[i])
    return pts[i]


def fit(loss, x0, passes=((0.5, 500), (0.1, 300))):
    """Nelder-Mead with restarts (it stalls in 7+ dimensions)."""
    x = x0
    for step, iters in passes:
        x = nelder_mead(loss, x, step=step, iters=iters)
    return x


def summary(pred, meas):
    """(median |rel err|, p90 |rel err|, bias = median signed rel err, count)."""
    if not meas:
        return None
    err = [(p - y) / y for p, y in zip(pred, meas)]
    a = sorted(abs(e) for e in err)
    return statistics.median(a), a[min(len(a) - 1, int(0.9 * len(a)))], statistics.median(err), len(a)


def eff(x):  # unconstrained -> (0, 1)
    return 1.0 / (1.0 + math.exp(-x))


def logit(e):
    return math.log(e / (1.0 - e))


LOSS = "l1"  # set by --loss


class Family:
    """One family fitted on the six GPUs: its rows, a parameter vector and its loss.

    sources: tuples of costdsl row groups; a GPU's rows are each source's rows in table
    order (a source is one measured table: the GEMMs of every dtype, the prefills, ...).
    unpack(x) -> the parameters as a partial roofline.json. report: (label, groups) whose
    accuracy is printed per GPU."""

    def __init__(self, name, sources, x0, unpack, report, weight=None):
        self.name, self.sources, self.x0, self.unpack, self.report = name, sources, x0, unpack, report
        self.weight = weight or (lambda i: 1.0)
        self.exclude = set()  # GPUs never fitted on (still tested)
        self.rows = {}  # gpu -> row ids

    def loss(self, srv, gpus, sample, tag):
        ids = [i for g in gpus for i in sample[g]]
        subset = srv.subset(f"{self.name}/{tag}", ids, [self.weight(i) for i in ids])
        return lambda x: srv.loss(self.unpack(x), subset, LOSS)

    def fit(self, srv, gpus, sample, tag):
        gpus = [g for g in gpus if g not in self.exclude]
        return self.unpack(fit(self.loss(srv, gpus, sample, tag), self.x0))


def merge(*parts):
    """Partial roofline.json objects, merged (nested objects field by field)."""
    out = {}
    for p in parts:
        for k, v in p.items():
            out[k] = merge(out[k], v) if isinstance(v, dict) and isinstance(out.get(k), dict) else v
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("calib", nargs="?", default=os.path.join(REPO, "..", "shared", "calibration"))
    ap.add_argument("--out", default=os.path.join(REPO, "data", "roofline.json"))
    ap.add_argument("--costdsl", default=os.path.join(REPO, "build", "costdsl"),
                    help="the costdsl CLI whose roofline is fitted (default: build/costdsl)")
    ap.add_argument("--rows", type=int, default=1200, help="rows per GPU (and dtype) used for each fit")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--no-logo", action="store_true", help="skip the leave-one-GPU-out folds")
    ap.add_argument("--logo-only", action="store_true", help="only the leave-one-GPU-out folds; write nothing")
    ap.add_argument("--families", default="gemm,attention,all_reduce",
                    help="the six-GPU families to run leave-one-GPU-out for (all are fitted for the output)")
    ap.add_argument("--loss", choices=("l1", "l2"), default="l1",
                    help="l1: mean |log(model/measured)| (aims at the median error, the targets' measure; the "
                         "default); l2: mean squared log ratio (the first attempt, pulled by outliers)")
    args = ap.parse_args()
    global LOSS
    LOSS = args.loss
    aic_dir = os.path.join(args.calib, "aiconfigurator")
    if not os.path.isdir(aic_dir):
        print(f"calibration data not found at {aic_dir}: nothing to fit, skipping")
        return 0
    if not os.access(args.costdsl, os.X_OK):
        print(f"{args.costdsl}: no costdsl CLI there; build it (meson compile -C build costdsl) or give --costdsl",
              file=sys.stderr)
        return 1

    started = time.monotonic()
    srv = CostdslRoofline(args.costdsl, args.calib, GPUS)
    listed = [g["name"] for g in srv.groups()["groups"]]

    def like(prefix):
        return tuple(g for g in listed if g.startswith(prefix))

    def present(groups):  # the groups the tables hold (a GPU set without MLA tables has no mla_*)
        return sorted({g for g in groups if g in listed})

    rng = random.Random(args.seed)
    report = []  # (family, held-out gpu or "all", summary)

    def sample(rows_by_gpu, n):
        return {g: (rng.sample(r, n) if len(r) > n else list(r)) for g, r in rows_by_gpu.items()}

    # ---- GEMM: bf16 and per-channel fp8 (its time includes the activation quantize kernel)
    def gemm_unpack(x):
        return {"gemm": {"eff_compute": {"bf16": eff(x[0]), "fp8": eff(x[1])}, "eff_tile_m64": eff(x[2]),
                         "k_overhead": math.exp(x[3]),
                         "memory": {"eff_max": eff(x[4]), "sat_bytes": math.exp(x[5]), "floor_s": math.exp(x[6])},
                         "overlap_p": 1.0 + math.exp(x[7])},
                "elementwise": {"quantize": {"eff_max": QUANTIZE_EFF_MAX, "sat_bytes": math.exp(x[8]),
                                             "floor_s": 0.0}}}

    gemm = Family("gemm", [("gemm.bf16", "gemm.fp8")],
                  [logit(0.8), logit(0.6), logit(0.9), math.log(64.0), logit(0.8), math.log(1e5), math.log(4e-6),
                   math.log(2.0), math.log(4e6)], gemm_unpack,
                  [("gemm.bf16", ("gemm.bf16",)), ("gemm.fp8", ("gemm.fp8",))])

    # ---- attention: prefill (context) and decode (generation) share the tile model
    def attn_unpack(x):
        return {"attention": {"eff_compute_prefill": eff(x[0]), "eff_compute_prefill_fp8": eff(x[1]),
                              "prefill_tile_s": math.exp(x[2]), "eff_mem": eff(x[3]),
                              "mem_sat_bytes": math.exp(x[4]), "decode_tile_s": math.exp(x[5]),
                              "overlap_p": 1.0 + math.exp(x[6]), "floor_s": math.exp(x[7])}}

    attention = Family("attention", [like("attn_prefill."), like("attn_decode.")],
                       [logit(0.6), logit(0.4), math.log(3e-6), logit(0.8), math.log(1e6), math.log(3e-6),
                        math.log(1.0), math.log(8e-6)], attn_unpack,
                       [("attention.prefill", like("attn_prefill.")), ("attention.decode", like("attn_decode."))])

    # ---- all-reduce: NCCL ring and the custom all-reduce (CUDA graph), fitted together.
    # L40S has no NVLink: its collectives cross PCIe switches and CPU sockets at a small,
    # topology-dependent fraction of its PCIe figure (1.5 GB/s bus bandwidth at 8 GPUs), which
    # no per-GPU figure describes. It is tested (leave-one-out) but never fitted on.
    def ar_unpack(x):
        return {"collective": {"alpha_s": math.exp(x[0]), "alpha_per_log2_s": math.exp(x[1]), "eff_max": eff(x[2]),
                               "sat_bytes": math.exp(x[3])},
                "custom_all_reduce": {"alpha_s": math.exp(x[4]), "alpha_per_gpu_s": math.exp(x[5]),
                                      "eff_max": eff(x[6]), "sat_bytes": math.exp(x[7]),
                                      "max_bytes": CUSTOM_MAX_BYTES, "max_gpus": CUSTOM_MAX_GPUS}}

    all_reduce = Family("all_reduce", [("all_reduce.nccl",), ("all_reduce.custom",)],
                        [math.log(15e-6), math.log(2e-6), logit(0.7), math.log(4e6), math.log(4e-6),
                         math.log(0.3e-6), logit(0.6), math.log(1e6)], ar_unpack,
                        [("all_reduce.nccl", ("all_reduce.nccl",)), ("all_reduce.custom", ("all_reduce.custom",)),
                         ("all_reduce.best.8gpu", ("all_reduce.best.8gpu",))])
    all_reduce.exclude = {"l40s"}

    families = [gemm, attention, all_reduce]
    groups_needed = sorted({g for f in families for s in f.sources + [grp for _, grp in f.report] for g in s})
    table = Table(srv, present(groups_needed))
    for fam in families:
        fam.rows = {g: [i for s in fam.sources for i in table.select(g, s)] for g in GPUS}
    # A custom all-reduce past its buffer has no path in the model (costdsl times it +inf, and
    # NCCL runs it): only the messages it takes are fitted.
    ar0 = all_reduce.unpack(all_reduce.x0)
    for g in GPUS:
        rows = all_reduce.rows[g]
        pred = srv.predict(ar0, rows)
        all_reduce.rows[g] = [i for i, t in zip(rows, pred) if math.isfinite(t)]

    def gemm_weight(i):
        # The grid is mostly tiny shapes; weight by log10 of the work so the compute-bound
        # shapes that dominate prefill time are not drowned out by launch-floor rows.
        return max(1.0, math.log10(table.flops[i]) - 6.0)

    gemm.weight = gemm_weight
    samples = {f.name: sample(f.rows, args.rows) for f in families}

    def evaluate(fam, gname, p):
        """Per report label: the family's rows of those groups (all of a group it does not fit on)."""
        out = []
        fitted_groups = {g for s in fam.sources for g in s}
        for label, groups in fam.report:
            rs = table.select(gname, groups)
            if set(groups) <= fitted_groups:
                keep = set(fam.rows[gname])
                rs = [i for i in rs if i in keep]
            out.append((label, summary(srv.predict(p, rs), [table.measured[i] for i in rs])))
        return out

    if not args.no_logo:
        print("leave-one-GPU-out: fit on five GPUs, error on the sixth")
        for fam in [f for f in families if f.name in args.families.split(",")]:
            for held in GPUS:
                train = [g for g in GPUS if g != held]
                p = fam.fit(srv, train, samples[fam.name], "-" + held)
                for fname, s in evaluate(fam, held, p):
                    report.append((fname, held, s))
                    if s:
                        print(f"  {fname:<24} {held:<10} median {s[0] * 100:6.1f}%  p90 {s[1] * 100:6.1f}%  "
                              f"bias {s[2] * 100:+6.1f}%  ({s[3]} rows)", flush=True)

    if args.logo_only:
        srv.close()
        return 0
    fitted = {f.name: f.fit(srv, GPUS, samples[f.name], "all") for f in families}
    gp, ap_, arp = fitted["gemm"], fitted["attention"], fitted["all_reduce"]
    for fam in families:
        for held in GPUS:
            for fname, s in evaluate(fam, held, fitted[fam.name]):
                report.append((fname, "in-sample " + held, s))

    # ---- elementwise (vidur's Llama-2-70B block, fp16, H100) and p2p (vidur's send/recv,
    #      H100; same node = NVLink, across nodes = the network): one curve each, mean
    #      squared log ratio over every row.
    def fit_curve(section, key, group, x0, unpack):
        ids = table_h100.select("h100_sxm", (group,))
        subset = srv.subset(f"{section}.{key}", ids)
        x = nelder_mead(lambda x: srv.loss({section: {key: unpack(x)}}, subset, "l2"), x0, step=0.5, iters=600)
        c = unpack(x)
        report.append((f"{section}.{key}", "in-sample h100_sxm",
                       summary(srv.predict({section: {key: c}}, ids), [table_h100.measured[i] for i in ids])))
        return c

    kinds = {"norm": "rms_norm.fp16", "activation": "silu_and_mul.fp16", "rope": "rope.fp16",
             "residual_add": "residual_add.fp16", "embedding": "embedding.fp16"}
    links = {"intra_node": "p2p.intra_node", "inter_node": "p2p.inter_node"}
    table_h100 = Table(srv, present(list(kinds.values()) + list(links.values())))
    elementwise = {}
    for kind, group in kinds.items():
        elementwise[kind] = fit_curve("elementwise", kind, group, [logit(0.5), math.log(4e6), math.log(2e-6)],
                                      lambda x: {"eff_max": eff(x[0]), "sat_bytes": math.exp(x[1]),
                                                 "floor_s": math.exp(x[2])})
    generic = {"eff_max": GENERIC_EFF_MAX, "sat_bytes": elementwise["norm"]["sat_bytes"], "floor_s": GENERIC_FLOOR_S}
    elementwise["generic"] = dict(generic)
    elementwise["kv_append"] = dict(generic)
    elementwise["quantize"] = gp["elementwise"]["quantize"]

    # ---- MoE (fused_moe's analytic form: grouped GEMMs + SiLU·mul, with the GEMM and
    #      activation fits) and MLA (with the attention fit): not fitted, reported.
    moe_params = merge(gp, {"elementwise": {"activation": elementwise["activation"]}})
    checks = [("fused_moe.bf16 (grouped)", ("fused_moe.bf16",), moe_params),
              ("fused_moe.fp8_block (grouped)", ("fused_moe.fp8_block",), moe_params),
              ("mla.prefill", like("mla_prefill."), ap_), ("mla.decode", like("mla_decode."), ap_)]
    table_checks = Table(srv, present(g for _, groups, _ in checks for g in groups))
    for g in GPUS:
        for label, groups, params in checks:
            rs = table_checks.select(g, groups)
            report.append((label, g, summary(srv.predict(params, rs), [table_checks.measured[i] for i in rs])))
    p2p = {link: fit_curve("p2p", link, group, [math.log(5e-6), logit(0.8), math.log(4e6)],
                           lambda x: {"alpha_s": math.exp(x[0]), "eff_max": eff(x[1]), "sat_bytes": math.exp(x[2])})
           for link, group in links.items()}
    requests = srv.requests
    srv.close()

    gm, ec = gp["gemm"], gp["gemm"]["eff_compute"]
    params = {
        "schema_version": 2,
        "notes": "Fitted by scripts/calibrate_roofline.py: gemm, attention and all-reduce on NVIDIA aiconfigurator "
                 "measurements of six GPUs (h100_sxm, b200_sxm, a100_sxm, gb200, b300_sxm, l40s); elementwise and "
                 "p2p on vidur H100 medians; energy NOT calibrated. See docs/accuracy.md.",
        "gemm": {
            "eff_compute": {"fp32": ec["bf16"], "bf16": ec["bf16"], "fp16": ec["bf16"], "fp8": ec["fp8"],
                            "fp4": ec["fp8"]},  # fp32/fp16/fp4 not measured: copies
            "eff_tile_m64": gm["eff_tile_m64"], "k_overhead": gm["k_overhead"], "overlap_p": gm["overlap_p"],
            "memory": gm["memory"],
        },
        "elementwise": {k: elementwise[k] for k in
                        ("generic", "norm", "activation", "rope", "residual_add", "embedding", "kv_append",
                         "quantize")},
        "attention": ap_["attention"],
        "collective": arp["collective"],
        "custom_all_reduce": arp["custom_all_reduce"],
        "p2p": p2p,
        "energy": {"idle_power_fraction": 0.3},
    }
    with open(args.out, "w") as f:
        json.dump(params, f, indent=2, sort_keys=False)
        f.write("\n")
    print(f"wrote {os.path.relpath(args.out, os.getcwd())}")
    print(json.dumps(params, indent=1))

    print("\nrelative error (|model - measured| / measured; bias = median signed error):")
    print(f"{'family':<28}{'gpu':<22}{'rows':>8}{'median':>9}{'p90':>9}{'bias':>9}")
    for fam, where, s in report:
        if s:
            print(f"{fam:<28}{where:<22}{s[3]:>8}{s[0] * 100:>8.1f}%{s[1] * 100:>8.1f}%{s[2] * 100:>+8.1f}%")
    print(f"\n{time.monotonic() - started:.0f} s, {requests} requests to costdsl roofline serve")
    return 0


if __name__ == "__main__":
    sys.exit(main())
