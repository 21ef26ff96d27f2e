#!/usr/bin/env python3
"""`costdsl roofline` (eval, serve: the fitter's batch mode) on generated calibration tables.

What it pins: the batch mode times every row with the model costdsl runs (each row's
prediction equals `costdsl kernel <kind> --timing roofline` for the call it lists), rows
are mapped by the importer's rules (decode KV = step + 1, MoE rows per rank, vidur's
shards, a send/recv pair's span), parameters sent reach the rows they govern and no
others, the loss is the weighted mean log ratio of those predictions, and
scripts/calibrate_roofline.py runs end to end against it and writes a roofline.json that
costdsl loads. Tests never read ../shared/calibration: the tables are written here.

usage: roofline_test.py COSTDSL [CALIBRATE_ROOFLINE_PY]
"""
import json
import math
import pathlib
import subprocess
import sys
import tempfile

costdsl = sys.argv[1]
script = sys.argv[2] if len(sys.argv) > 2 else None
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)


def close(a, b, rel=1e-12):
    return a == b or abs(a - b) <= rel * max(abs(a), abs(b))


PROV = "SGLang,0.5.14,NVIDIA GPU"
TABLES = {
    "gemm.csv": ["framework,version,device,op_name,kernel_source,gemm_dtype,m,n,k,latency",
                 f"{PROV},gemm,k,bfloat16,4096,4096,4096,0.18",
                 f"{PROV},gemm,k,bfloat16,1,8192,8192,0.05",
                 f"{PROV},gemm,k,fp8,2048,4096,4096,0.06",
                 f"{PROV},gemm,k,fp8_block,2048,4096,4096,0.07",  # its own group (block-scaled)
                 f"{PROV},gemm,k,bfloat16,16,4096,14336,NaN"],  # skipped: no time
    "attention.csv": ["framework,version,device,op_name,kernel_source,batch_size,isl,num_heads,num_key_value_heads,"
                      "head_dim,beam_width,attn_dtype,kv_cache_dtype,step,window_size,latency",
                      f"{PROV},context_attention,fa,1,4096,32,8,128,1,bfloat16,bfloat16,0,0,0.3",
                      f"{PROV},context_attention,fa,4,1024,32,8,128,1,fp8,fp8,0,0,0.1",
                      f"{PROV},context_attention,fa,1,4096,32,8,128,1,bfloat16,bfloat16,0,128,0.2",  # window
                      f"{PROV},generation_attention,fa,64,1,32,8,128,1,bfloat16,bfloat16,2047,0,0.15",
                      f"{PROV},generation_attention,fa,8,1,32,8,128,1,bfloat16,fp8,511,0,0.02"],
    "mla.csv": ["framework,version,device,op_name,kernel_source,mla_dtype,kv_cache_dtype,num_heads,batch_size,isl,"
                "tp_size,step,latency",
                f"{PROV},mla_context,fm,bfloat16,bfloat16,16,1,4096,8,0,0.5",
                f"{PROV},mla_generation,fm,bfloat16,bfloat16,16,32,1,8,1023,0.05"],
    "moe.csv": ["framework,version,device,op_name,kernel_source,moe_dtype,num_tokens,hidden_size,inter_size,topk,"
                "num_experts,moe_tp_size,moe_ep_size,distribution,latency",
                f"{PROV},moe,fm,bfloat16,256,4096,1536,8,128,1,8,balanced,0.3",
                f"{PROV},moe,fm,fp8_block,64,7168,2048,8,256,1,8,balanced,0.2",
                f"{PROV},moe,fm,bfloat16,256,4096,1536,8,128,1,8,power_law_1.2,0.4"],  # skipped
    "nccl.csv": ["framework,version,device,op_name,kernel_source,nccl_dtype,num_gpus,message_size,latency",
                 "NCCL,2.29,GPU,all_reduce,nccl,half,8,1048576,0.03",
                 "NCCL,2.29,GPU,all_reduce,nccl,half,8,16777216,0.2",
                 "NCCL,2.29,GPU,all_gather,nccl,half,8,1048576,0.02"],  # read, not fitted: a counted skip
    "custom_allreduce.csv": ["framework,version,device,op_name,kernel_source,allreduce_dtype,num_gpus,message_size,"
                             "backend,latency",
                             f"{PROV},custom_allreduce,ca,bfloat16,8,1048576,sglang_graph,0.02",
                             f"{PROV},custom_allreduce,ca,bfloat16,8,16777216,sglang_graph,0.5",  # past 8 MiB
                             f"{PROV},custom_allreduce,ca,bfloat16,8,1048576,sglang_eager,0.04"],  # skipped
    "gdn.csv": ["framework,version,device,op_name,kernel_source,phase,batch_size,seq_len,num_tokens,d_model,d_conv,"
                "num_k_heads,head_k_dim,num_v_heads,head_v_dim,model_name,latency",
                f"{PROV},gdn,causal_conv1d_fn,context,2,1024,2048,4096,4,2,128,4,128,q,0.01",
                f"{PROV},gdn,causal_conv1d_update,generation,64,1,64,4096,4,2,128,4,128,q,0.003",
                f"{PROV},gdn,chunk_gated_delta_rule,context,2,1024,2048,4096,4,2,128,4,128,q,0.06",
                f"{PROV},gdn,fused_recurrent_gated_delta_rule_packed_decode,generation,64,1,64,4096,4,2,128,4,128,q,"
                "0.01",
                f"{PROV},gdn,flashinfer_gated_delta_rule_decode,generation,64,1,64,4096,4,2,128,4,128,q,0.01"],  # skip
}
MLP_OPS = ["emb", "input_layernorm", "attn_rope", "post_attention_layernorm", "mlp_act", "add"]


def mlp_row(tokens, tp, medians):
    return ",".join([str(m) for m in medians] + [str(tokens), str(tp), "8192", "28672", "64", "8", "32000"])


def write_calibration(root, gpus):
    for gpu in gpus:
        d = root / "aiconfigurator" / gpu
        d.mkdir(parents=True)
        for name, lines in TABLES.items():
            if gpu == "a100_sxm" and name != "gemm.csv":
                continue
            (d / name).write_text("\n".join(lines) + "\n")
    v = root / "vidur_h100"
    v.mkdir()
    head = [f"time_stats.{op}.median" for op in MLP_OPS] + [
        "num_tokens", "num_tensor_parallel_workers", "n_embd", "n_expanded_embd", "n_head", "n_kv_head", "vocab_size"]
    (v / "llama2_70b_mlp.csv").write_text("\n".join([
        ",".join(head),
        mlp_row(128, 8, [0.02, 0.012, 0.01, 0.012, 0.011, 0.01]),
        mlp_row(2048, 2, [0.25, 0.12, 0.1, 0.12, 0.36, 0.06]),
        mlp_row(4096, 1, [0.5, 0.24, 0.2, 0.24, "NaN", 0.12])]) + "\n")  # mlp_act NaN: skipped
    (v / "dgx_send_recv.csv").write_text("\n".join([
        ",time_stats.send_recv.median,rank,num_workers,size,collective,devices_per_node,max_devices_per_node",
        "0,0.017,0,2,2048,send_recv,1,8",
        "1,0.35,0,2,16777216,send_recv,1,8",
        "2,0.012,0,2,2048,send_recv,2,8",
        "3,0.06,0,2,16777216,send_recv,2,8"]) + "\n")


class Serve:
    def __init__(self, calib, gpus):
        self.p = subprocess.Popen([costdsl, "roofline", "serve", str(calib), "--gpus", ",".join(gpus)],
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

    def ask(self, req):
        self.p.stdin.write((req if isinstance(req, str) else json.dumps(req)) + "\n")
        self.p.stdin.flush()
        line = self.p.stdout.readline()
        if not line:
            raise SystemExit(f"serve stopped: {self.p.stderr.read()}")
        return json.loads(line)

    def close(self):
        self.p.stdin.close()
        return self.p.wait()


def kernel_ms(gpu, call):
    """`costdsl kernel <kind>` on the call, roofline timing: what an analytic leaf costs."""
    args = [costdsl, "kernel", call["kind"], "--gpu", gpu, "--timing", "roofline", "--json"]
    for part in ("config", "input"):
        for k, v in call[part].items():
            args += ["--" + k.replace("_", "-"), str(v)]
    r = subprocess.run(args, capture_output=True, text=True)
    if r.returncode != 0:
        failures.append(f"{' '.join(args)}: exit {r.returncode}: {r.stderr}")
        return math.nan
    return json.loads(r.stdout)["time_ms"]


with tempfile.TemporaryDirectory() as tmp:
    calib = pathlib.Path(tmp) / "calibration"
    write_calibration(calib, ["h100_sxm", "a100_sxm"])
    srv = Serve(calib, ["h100_sxm", "a100_sxm"])

    groups = srv.ask({"op": "groups"})
    names = [g["name"] for g in groups["groups"]]
    counts = {g["name"]: g["rows"] for g in groups["groups"]}
    for want in ("gemm.bf16", "gemm.fp8", "attn_prefill.bf16", "attn_prefill.fp8", "attn_decode.bf16",
                 "attn_decode.fp8", "mla_prefill.bf16", "mla_decode.bf16", "fused_moe.bf16", "fused_moe.fp8_block", "gemm.fp8_block",
                 "all_reduce.nccl", "all_reduce.custom", "all_reduce.best.8gpu", "rms_norm.fp16",
                 "silu_and_mul.fp16", "rope.fp16", "residual_add.fp16", "embedding.fp16", "p2p.intra_node",
                 "p2p.inter_node"):
        check(want in names, f"groups: no {want} in {names}")
    check(counts.get("gemm.bf16") == {"h100_sxm": 2, "a100_sxm": 2}, f"gemm.bf16 rows {counts.get('gemm.bf16')}")
    check(counts.get("gemm.fp8") == {"h100_sxm": 1}, f"gemm.fp8 rows {counts.get('gemm.fp8')} (none on A100)")
    check(counts.get("gemm.fp8_block") == {"h100_sxm": 1},
          f"gemm.fp8_block rows {counts.get('gemm.fp8_block')} (block-scaled fp8 is not per-tensor fp8's group)")
    check(counts.get("rms_norm.fp16") == {"h100_sxm": 6}, "two norms per vidur row, three rows")
    check(counts.get("silu_and_mul.fp16") == {"h100_sxm": 2}, "the NaN mlp_act median is skipped")
    for g in ("gdn_conv1d_prefill.bf16", "gdn_conv1d_decode.bf16", "gdn_prefill.bf16", "gdn_decode.bf16"):
        check(counts.get(g) == {"h100_sxm": 1}, f"{g} rows {counts.get(g)} (one GDN row per kind)")
    skipped = groups["skipped"]
    for reason in ("gemm.fp8: gpu 'a100_sxm' (sm_80) has no fp8 tensor-core path",
                   "gemm.fp8_block: gpu 'a100_sxm' (sm_80) has no fp8_block tensor-core path",
                   "latency NaN", "window_size > 0", "distribution power_law_1.2", "op_name all_gather",
                   "backend sglang_eager", "time_stats.mlp_act.median NaN",
                   "kernel_source flashinfer_gated_delta_rule_decode: a bf16 recurrent state"):
        check(any(reason in k for k in skipped), f"skipped: no reason {reason!r} in {list(skipped)}")

    rows = srv.ask({"op": "rows", "groups": names, "calls": True})
    ids, gpu_of, call_of = rows["id"], rows["gpu"], rows["call"]
    gname = {i: rows["gpus"][g] for i, g in zip(ids, gpu_of)}
    grp = {i: rows["groups"][g] for i, g in zip(ids, rows["group"])}
    call = dict(zip(ids, call_of))
    measured = dict(zip(ids, rows["measured_s"]))
    pred = dict(zip(ids, srv.ask({"op": "eval", "ids": ids})["pred"]))

    # The importer's and vidur's mapping, on a few rows.
    def calls_of(group):
        return [call[i] for i in ids if grp[i] == group and gname[i] == "h100_sxm"]

    check({"batch": 64, "total_kv": 64 * 2048} in [c["input"] for c in calls_of("attn_decode.bf16")],
          f"decode KV length is step + 1: {calls_of('attn_decode.bf16')}")
    check([c["input"] for c in calls_of("fused_moe.bf16")] == [{"rows": 256, "active_experts": 0}],
          f"MoE rows per rank = tokens * topk / ep: {calls_of('fused_moe.bf16')}")
    check({"dtype": "fp16", "num_qo_heads": 8, "num_kv_heads": 1, "head_dim": 128} in
          [c["config"] for c in calls_of("rope.fp16")], f"rope runs the tp 8 shard: {calls_of('rope.fp16')}")
    check([c["config"]["num_gpus"] for c in calls_of("p2p.inter_node")] == [16, 16],
          f"a pair across nodes spans two 8-GPU nodes: {calls_of('p2p.inter_node')}")
    check(measured[ids[0]] > 0 and all(math.isfinite(t) for t in measured.values()), "measured times in seconds")

    # Every row is timed by the model costdsl runs: `costdsl kernel` on the listed call.
    for i in ids:
        c = call[i]
        if c["kind"] == "residual_add" or c.get("path") in ("nccl", "custom"):
            continue
        ms = kernel_ms(gname[i], c)
        check(close(pred[i] * 1e3, ms, 1e-9), f"row {i} {c}: batch mode {pred[i] * 1e3} ms, costdsl kernel {ms} ms")
    # The all-reduce backends: the kernel takes the faster, the custom path ends at its buffer.
    by_shape = {}
    for i in ids:
        if call[i]["kind"] == "all_reduce":
            key = (gname[i], json.dumps(call[i]["config"]), json.dumps(call[i]["input"]))
            by_shape.setdefault(key, {})[call[i]["path"]] = pred[i]
    for key, p in by_shape.items():
        if "nccl" in p and "custom" in p and "best" in p:
            check(close(p["best"], min(p["nccl"], p["custom"])), f"{key}: best {p}")
    check(any(math.isinf(p.get("custom", 0)) for p in by_shape.values()), "a 32 MiB custom all-reduce has no path")

    # Parameters reach the rows they govern, and only those.
    slow = srv.ask({"op": "eval", "ids": ids, "params": {"gemm": {"eff_compute": {"bf16": 0.2}}}})["pred"]
    for i, t in zip(ids, slow):
        if grp[i] == "gemm.bf16" and call[i]["input"]["m"] == 4096:
            check(t > 3 * pred[i], f"a compute-bound bf16 GEMM at 1/4 the efficiency: {pred[i]} -> {t}")
        elif not grp[i].startswith(("gemm.", "fused_moe.")):
            check(t == pred[i], f"{grp[i]} moved with gemm.eff_compute.bf16: {pred[i]} -> {t}")
    add = [i for i in ids if grp[i] == "residual_add.fp16"]
    fast = srv.ask({"op": "eval", "ids": add, "params": {"elementwise": {"residual_add": {"eff_max": 0.5}}}})["pred"]
    check(all(t != pred[i] for i, t in zip(add, fast)), "elementwise.residual_add times vidur's add")
    full = json.loads((pathlib.Path(__file__).resolve().parents[2] / "data" / "roofline.json").read_text())
    del full["schema_version"], full["notes"]
    check(srv.ask({"op": "eval", "ids": ids, "params": full})["pred"] == [pred[i] for i in ids],
          "the committed roofline.json as a partial set is the built-in parameters")

    # The loss is the weighted mean log ratio of those predictions, in row order.
    some = [i for i in ids if grp[i].startswith("gemm.")]
    weights = [1.0 + k for k in range(len(some))]
    srv.ask({"op": "subset", "name": "g", "ids": some, "weights": weights})
    for kind, f in (("l1", abs), ("l2", lambda e: e * e)):
        got = srv.ask({"op": "eval", "subset": "g", "out": kind})["loss"]
        want = sum(w * f(math.log(pred[i] / measured[i])) for i, w in zip(some, weights)) / sum(weights)
        check(close(got, want, 1e-14), f"{kind} loss {got}, expected {want}")

    # A bad request is answered with an error and the next one is served.
    bad = srv.ask('{"op": "eval", "ids": [0], "params": {"gemm": {"overlap_p": NaN}}}')
    check("params.gemm.overlap_p" in bad.get("error", ""), f"NaN parameter: {bad}")
    check("pred" in srv.ask({"op": "eval", "ids": [0]}), "serving goes on after an error")
    check(srv.close() == 0, "serve exits 0 at the end of its input")

    # eval: the accuracy per group and GPU, skips and the rows without a path.
    r = subprocess.run([costdsl, "roofline", "eval", str(calib), "--gpus", "h100_sxm,a100_sxm", "--json"],
                       capture_output=True, text=True)
    check(r.returncode == 0, f"roofline eval: exit {r.returncode}: {r.stderr}")
    if r.returncode == 0:
        j = json.loads(r.stdout)
        check(j["rows"] == len(ids), f"eval rows {j['rows']} vs serve {len(ids)}")
        custom = [g for g in j["groups"] if g["group"] == "all_reduce.custom"]
        check(custom and custom[0]["rows"] == 1 and custom[0]["no_path"] == 1, f"custom all-reduce: {custom}")
        gemm = [g for g in j["groups"] if g["group"] == "gemm.bf16" and g["gpu"] == "h100_sxm"][0]
        errs = sorted(abs(pred[i] - measured[i]) / measured[i] for i in ids
                      if grp[i] == "gemm.bf16" and gname[i] == "h100_sxm")
        check(close(gemm["median_abs_rel_err"], (errs[0] + errs[1]) / 2), f"eval median {gemm} vs {errs}")

    # The fitter end to end on these tables (all six GPUs: it fits leave-one-GPU-out).
    if script:
        six = ["h100_sxm", "b200_sxm", "a100_sxm", "gb200", "b300_sxm", "l40s"]
        calib6 = pathlib.Path(tmp) / "calibration6"
        write_calibration(calib6, six)
        out = pathlib.Path(tmp) / "roofline.json"
        r = subprocess.run([sys.executable, script, str(calib6), "--out", str(out), "--costdsl", costdsl, "--no-logo"],
                           capture_output=True, text=True, timeout=600)
        check(r.returncode == 0, f"calibrate_roofline.py: exit {r.returncode}\n{r.stdout[-2000:]}{r.stderr[-2000:]}")
        if r.returncode == 0:
            e = subprocess.run([costdsl, "roofline", "eval", str(calib6), "--gpus", "h100_sxm", "--params", str(out),
                                "--json"], capture_output=True, text=True)
            check(e.returncode == 0, f"the fitted roofline.json does not load: {e.stderr}")
            check("gemm.bf16" in r.stdout and "p2p.inter_node" in r.stdout, "the fitter's accuracy table")

if failures:
    print(f"{len(failures)} failure(s):")
    for f in failures:
        print(" -", f)
    sys.exit(1)
print("roofline: all checks passed")
