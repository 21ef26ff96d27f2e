"""Rows of NVIDIA aiconfigurator's measurement tables, read the way costdsl's importer
(tools/aiconfigurator.hpp) maps them: the same table recognition (by header and op_name,
whatever the file is called), the same dtype names and the same rules for the rows that
costdsl cannot model (sliding windows, mixed attention/KV dtypes, weight-only MoE dtypes,
power-law routing, eager custom all-reduce, int8 NCCL). Standard library only.

Used by scripts/calibrate_roofline.py. Shapes are per GPU; times in seconds.
"""
import csv
import os

# Header columns that identify each table (a table is the first kind whose columns are all present);
# context and generation attention (and MLA) share their columns and differ in op_name.
SIGNATURES = [
    ("gemm", {"gemm_dtype", "m", "n", "k", "latency"}),
    ("attention", {"batch_size", "isl", "num_heads", "num_key_value_heads", "head_dim", "kv_cache_dtype", "step",
                   "latency", "op_name"}),
    ("mla", {"mla_dtype", "kv_cache_dtype", "num_heads", "batch_size", "isl", "step", "latency", "op_name"}),
    ("moe", {"moe_dtype", "num_tokens", "hidden_size", "inter_size", "topk", "num_experts", "moe_tp_size",
             "moe_ep_size", "latency"}),
    ("custom_allreduce", {"allreduce_dtype", "num_gpus", "message_size", "latency", "backend"}),
    ("nccl", {"nccl_dtype", "num_gpus", "message_size", "latency", "op_name"}),
]

DTYPES = {"bfloat16": "bf16", "float16": "fp16", "half": "fp16", "fp8": "fp8", "nvfp4": "fp4"}
BPE = {"fp32": 4.0, "bf16": 2.0, "fp16": 2.0, "fp8": 1.0, "fp4": 0.5}

# DeepSeek-V3's MLA dims: aiconfigurator's MLA tables measure that module.
MLA_DIMS = {"kv_lora_rank": 512, "qk_nope_head_dim": 128, "qk_rope_head_dim": 64, "v_head_dim": 128}


def table_kind(header):
    cols = set(header)
    for kind, need in SIGNATURES:
        if need <= cols:
            return kind
    return None


def read_tables(directory):
    """{table kind: [row dict, ...]} for every .csv / .txt file in directory."""
    out = {}
    for name in sorted(os.listdir(directory)):
        if not (name.endswith(".csv") or name.endswith(".txt")):
            continue
        with open(os.path.join(directory, name), newline="") as f:
            reader = csv.DictReader(f)
            kind = table_kind(reader.fieldnames or [])
            if kind is None:
                continue
            rows = list(reader)
        if kind in ("mla", "attention"):  # one signature, two tables: op_name tells them apart
            names = {"mla_context": "context_mla", "mla_generation": "generation_mla",
                     "context_attention": "context_attention", "generation_attention": "generation_attention"}
            for r in rows:
                if r["op_name"] in names:
                    out.setdefault(names[r["op_name"]], []).append(r)
        else:
            out.setdefault(kind, []).extend(rows)
    return out


def latency_s(r):
    v = float(r["latency"])
    return v * 1e-3 if v > 0 and v == v and v != float("inf") else None


def gemm_rows(tables):
    """(dtype, m, n, k, t) for bf16 and per-channel fp8 GEMMs."""
    out = []
    for r in tables.get("gemm", []):
        dt = {"bfloat16": "bf16", "fp8": "fp8"}.get(r["gemm_dtype"])
        t = latency_s(r)
        if dt is None or t is None:
            continue
        out.append((dt, float(r["m"]), float(r["n"]), float(r["k"]), t))
    return out


def prefill_rows(tables):
    """(dtype, batch, isl, qo, kv, head_dim, t): full causal attention, one dtype for q and KV."""
    out = []
    for r in tables.get("context_attention", []):
        if r.get("window_size", "0") != "0" or r["attn_dtype"] != r["kv_cache_dtype"]:
            continue
        dt = DTYPES.get(r["attn_dtype"])
        t = latency_s(r)
        if dt is None or t is None or r.get("step", "0") != "0":
            continue
        out.append((dt, float(r["batch_size"]), float(r["isl"]), float(r["num_heads"]),
                    float(r["num_key_value_heads"]), float(r["head_dim"]), t))
    return out


def decode_rows(tables):
    """(kv_dtype, batch, kv_len, qo, kv, head_dim, t): one decode step, KV length step + 1."""
    out = []
    for r in tables.get("generation_attention", []):
        if r.get("window_size", "0") != "0" or r["isl"] != "1":
            continue
        dt = DTYPES.get(r["kv_cache_dtype"])
        t = latency_s(r)
        if dt is None or t is None:
            continue
        out.append((dt, float(r["batch_size"]), float(r["step"]) + 1, float(r["num_heads"]),
                    float(r["num_key_value_heads"]), float(r["head_dim"]), t))
    return out


def mla_rows(tables, which):
    """context: (dtype, batch, isl, heads, t) with KV dtype = compute dtype;
    generation: (kv_dtype, batch, kv_len, heads, t)."""
    out = []
    for r in tables.get(which, []):
        t = latency_s(r)
        if t is None:
            continue
        if which == "context_mla":
            if r["kv_cache_dtype"] != r["mla_dtype"] or r["step"] != "0":
                continue
            dt = DTYPES.get(r["mla_dtype"])
            if dt is None:
                continue
            out.append((dt, float(r["batch_size"]), float(r["isl"]), float(r["num_heads"]), t))
        else:
            dt = DTYPES.get(r["kv_cache_dtype"])
            if dt is None or r["isl"] != "1":
                continue
            out.append((dt, float(r["batch_size"]), float(r["step"]) + 1, float(r["num_heads"]), t))
    return out


def moe_rows(tables):
    """(dtype, rows per rank, hidden, inter per rank, experts per rank, top_k, t), balanced routing."""
    out = []
    for r in tables.get("moe", []):
        if r["distribution"] != "balanced":
            continue
        dt = {"bfloat16": "bf16", "fp8_block": "fp8", "nvfp4": "fp4"}.get(r["moe_dtype"])
        t = latency_s(r)
        if dt is None or t is None:
            continue
        tp, ep = float(r["moe_tp_size"]), float(r["moe_ep_size"])
        e = float(r["num_experts"])
        if e % ep != 0 or float(r["inter_size"]) % tp != 0:
            continue
        k = float(r["topk"])
        out.append((dt, float(r["num_tokens"]) * k / ep, float(r["hidden_size"]), float(r["inter_size"]) / tp,
                    e / ep, k, t))
    return out


def all_reduce_rows(tables):
    """(backend, num_gpus, message bytes, t): NCCL fp16 and the framework's CUDA-graph custom all-reduce."""
    out = []
    for r in tables.get("nccl", []):
        if r["op_name"] != "all_reduce" or r["nccl_dtype"] not in ("half", "bfloat16", "float16"):
            continue
        t = latency_s(r)
        if t is not None:
            out.append(("nccl", int(r["num_gpus"]), 2.0 * float(r["message_size"]), t))
    for r in tables.get("custom_allreduce", []):
        if r["backend"] != "sglang_graph" or r["allreduce_dtype"] not in ("bfloat16", "float16", "half"):
            continue
        t = latency_s(r)
        if t is not None:
            out.append(("custom", int(r["num_gpus"]), 2.0 * float(r["message_size"]), t))
    return out
