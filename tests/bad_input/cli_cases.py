#!/usr/bin/env python3
"""The bad-input catalogue, CLI level (README.md in this folder lists every case).

Every rejected case must exit 2 (never 1, the "internal error" exit, and never a
signal) with a message naming the flag or field, the value and the rule. The few
accepted cases must exit 0 with a finite result carrying the right coverage flag.

usage: cli_cases.py COSTDSL
"""
import gzip
import json
import math
import pathlib
import subprocess
import sys
import tempfile

costdsl = sys.argv[1]
root = pathlib.Path(__file__).resolve().parents[2]
models = root / "data" / "models"
failures = []
count = 0

EVAL = ["eval", "--arch", "llama3_8b", "--gpu", "h200"]
GEMM = ["kernel", "gemm", "--gpu", "h200", "--n", "4096", "--k", "4096"]


def run(name, args, timeout=120):
    """Counts the case and runs it; None (recorded as a failure) when it hangs."""
    global count
    count += 1
    try:
        return subprocess.run([costdsl, *args], capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        failures.append(f"{name}: hung (timeout): {args}")
        return None


def rejects(name, args, *needles):
    """Exit 2 and every needle in the output (stderr + stdout)."""
    r = run(name, args)
    if r is None:
        return
    out = r.stderr + r.stdout
    if r.returncode != 2:
        failures.append(f"{name}: exit {r.returncode}, expected 2 ({args})\n{out[-1500:]}")
        return
    for n in needles:
        if n not in out:
            failures.append(f"{name}: message lacks {n!r}: {out.strip()[:600]}")


def accepts_json(name, args, check):
    """Exit 0, JSON on stdout, and check(json) returns None or a complaint."""
    r = run(name, args)
    if r is None:
        return
    if r.returncode != 0:
        failures.append(f"{name}: exit {r.returncode}, expected 0 ({args})\n{(r.stderr + r.stdout)[-1500:]}")
        return
    try:
        j = json.loads(r.stdout)
    except json.JSONDecodeError as e:
        failures.append(f"{name}: stdout is not JSON ({e}): {r.stdout[:300]}")
        return
    complaint = check(j)
    if complaint:
        failures.append(f"{name}: {complaint}")


def accepts(name, args, *needles):
    """Exit 0 and every needle in stdout (a counted, reported skip)."""
    r = run(name, args)
    if r is None:
        return
    if r.returncode != 0:
        failures.append(f"{name}: exit {r.returncode}, expected 0 ({args})\n{(r.stderr + r.stdout)[-1500:]}")
        return
    for n in needles:
        if n not in r.stdout:
            failures.append(f"{name}: output lacks {n!r}: {r.stdout.strip()[-800:]}")


def total_of(j):
    return j["total"]


def finite_total(j, flag):
    t = total_of(j)
    for k in ("time_ms", "flops", "bytes", "energy_j"):
        if not math.isfinite(t[k]):
            return f"total {k} is {t[k]}"
    if flag is not None and flag not in t["coverage"]:
        return f"total coverage {t['coverage']} lacks {flag}"
    return None


# ---- negative numbers --------------------------------------------------------
rejects("kernel --m -5", GEMM + ["--m", "-5"], "--m", "must be a non-negative integer, got -5")
rejects("eval --decode -3x100", EVAL + ["--decode", "-3x100"], "--decode '-3x100'", "'-3'",
        "is not a non-negative 32-bit integer")
rejects("eval --decode 3x-100", EVAL + ["--decode", "3x-100"], "'-100' is not a non-negative 32-bit integer")
rejects("eval --tp -1", EVAL + ["--tp", "-1"], "--tp", "must be a positive integer, got -1")
rejects("eval --decode-rows 0", EVAL + ["--decode", "4x100", "--decode-rows", "0"], "--decode-rows", "0")
rejects("eval --decode-rows past the bound", EVAL + ["--decode", "4x100", "--decode-rows", "4097"], "--decode-rows", "4097")
rejects("eval --prefill 0:-1", EVAL + ["--prefill", "0:-1"], "--prefill '0:-1'", "'-1' is not a non-negative")
rejects("eval --prefill -5:100", EVAL + ["--prefill", "-5:100"], "'-5' is not a non-negative 32-bit integer")
# A leading space and a negation that wraps modulo 2^64 used to read as 1 request.
rejects("eval --decode ' -18446744073709551615x100'", EVAL + ["--decode", " -18446744073709551615x100"],
        "' -18446744073709551615' is not a non-negative 32-bit integer")
rejects("eval --decode +5x100", EVAL + ["--decode", "+5x100"], "'+5' is not a non-negative 32-bit integer")
rejects("eval --routing-skew -1", ["eval", "--arch", "qwen3_30b_a3b", "--gpu", "h200", "--routing-skew", "-1"],
        "--routing-skew", "must be a finite number >= 0, got -1")

# ---- zero where at least 1 is needed ----------------------------------------------
rejects("eval --tp 0", EVAL + ["--tp", "0"], "--tp", "must be a positive integer (at least 1), got 0")
rejects("eval --ep 0", ["eval", "--arch", "qwen3_30b_a3b", "--gpu", "h200", "--ep", "0"], "--ep", "got 0")
rejects("sweep --tp 0", ["sweep", "--arch", "llama3_8b", "--gpu", "h200", "--tp", "1,0"], "--tp",
        "must be a positive integer (at least 1), got 0")
rejects("sweep --decode-batch 0", ["sweep", "--arch", "llama3_8b", "--gpu", "h200", "--decode-batch", "0"],
        "--decode-batch", "got 0")
rejects("sweep --kv 0", ["sweep", "--arch", "llama3_8b", "--gpu", "h200", "--kv", "0"], "--kv", "got 0")
rejects("eval --decode 4x0 (KV length 0)", EVAL + ["--decode", "4x0"], "--decode '4x0'",
        "a decode request has at least 1 token of KV")
rejects("eval --prefill 0:0 (append 0)", EVAL + ["--prefill", "128:0"], "--prefill '128:0'",
        "a chunk must append at least 1 token")
rejects("kernel attn_decode --num-kv-heads 0",
        ["kernel", "attn_decode", "--gpu", "h200", "--num-qo-heads", "8", "--num-kv-heads", "0", "--head-dim", "128",
         "--batch", "1", "--total-kv", "100"], "attn_decode: num_kv_heads 0 must be in 1..1024")
rejects("kernel gemm --n 0", ["kernel", "gemm", "--gpu", "h200", "--m", "1", "--n", "0", "--k", "4096"],
        "gemm: n 0 and k 4096 must both be at least 1")
GDN = ["--gpu", "h200", "--num-k-heads", "4", "--head-k-dim", "128", "--head-v-dim", "128", "--batch", "8"]
rejects("kernel gdn_decode --num-v-heads 6 over 4 k heads", ["kernel", "gdn_decode", *GDN, "--num-v-heads", "6"],
        "gdn_decode: num_v_heads 6 must be a multiple of num_k_heads 4",
        "each k head is shared by num_v_heads / num_k_heads v heads")
rejects("kernel gdn_prefill --head-k-dim 512",
        ["kernel", "gdn_prefill", "--gpu", "h200", "--num-k-heads", "4", "--head-k-dim", "512", "--num-v-heads", "8",
         "--head-v-dim", "128", "--batch", "1", "--seq-len", "1024"], "gdn_prefill: head_k_dim 512 must be in 1..256")
rejects("kernel gdn_conv1d_decode --d-conv 1",
        ["kernel", "gdn_conv1d_decode", *GDN, "--num-v-heads", "8", "--d-conv", "1"],
        "gdn_conv1d_decode: d_conv 1 must be in 2..8")
rejects("kernel gdn_decode --dtype fp8", ["kernel", "gdn_decode", *GDN, "--num-v-heads", "8", "--dtype", "fp8"],
        "gdn_decode: dtype fp8 is not one the gated delta rule runs in")

# ---- malformed --prefill / --decode ---------------------------------------------
rejects("--prefill without colon", EVAL + ["--prefill", "4096"], "--prefill '4096' must be PREFIX:APPEND")
rejects("--prefill two colons", EVAL + ["--prefill", "0:4096:1"], "--prefill '0:4096:1'", "'4096:1'")
rejects("--prefill letters", EVAL + ["--prefill", "a:b"], "--prefill 'a:b'", "'a' is not a non-negative")
rejects("--prefill empty", EVAL + ["--prefill", ""], "--prefill '' must be PREFIX:APPEND")
rejects("--prefill with x", EVAL + ["--prefill", "0x4096"], "--prefill '0x4096' must be PREFIX:APPEND")
rejects("--decode with colon", EVAL + ["--decode", "64:2048"], "--decode '64:2048' must be COUNTxKV")
rejects("--decode missing count", EVAL + ["--decode", "x2048"], "--decode 'x2048'", "'' is not a non-negative")
rejects("--decode missing kv", EVAL + ["--decode", "64x"], "--decode '64x'", "'' is not a non-negative")
rejects("--decode float", EVAL + ["--decode", "64x2048.5"], "'2048.5' is not a non-negative 32-bit integer")
rejects("--decode beyond 32 bits", EVAL + ["--decode", "1x4294967296"], "'4294967296' is not a non-negative 32-bit")
rejects("--decode more than 2^20 requests", EVAL + ["--decode", "2000000x16"], "more than 2^20 decode requests")
rejects("kernel --m not a number", GEMM + ["--m", "12abc"], "--m", "12abc")

# ---- unknown names ------------------------------------------------------------------
rejects("unknown gpu", ["eval", "--arch", "llama3_8b", "--gpu", "h300"], "unknown gpu 'h300'", "known: a100_sxm")
rejects("unknown arch", ["eval", "--arch", "gpt5", "--gpu", "h200"], "unknown arch 'gpt5'", "known: llama3_8b")
rejects("arch names are exact", ["eval", "--arch", "Llama3_8B", "--gpu", "h200"], "unknown arch 'Llama3_8B'")
rejects("arch names are not paths", ["eval", "--arch", "../models/llama3_8b", "--gpu", "h200"],
        "unknown arch '../models/llama3_8b'")
rejects("unknown kernel kind", ["kernel", "matmul", "--gpu", "h200"], "unknown kernel kind 'matmul'", "known: gemm")
rejects("unknown timing", EVAL + ["--timing", "fast"], "--timing", "fast", "auto,profile,roofline")
rejects("unknown family", ["eval", "--model-config", str(models / "llama3_8b.json"), "--family", "mistral", "--gpu",
                           "h200"], "--family", "mistral")
rejects("unknown dtype", GEMM + ["--m", "1", "--dtype", "int3"], "--dtype 'int3' is not a known dtype")
rejects("int4 dense GEMM", GEMM + ["--m", "1", "--dtype", "int4"], "gemm: dtype int4: int4 weight-only is modelled for routed experts only")
rejects("dtype the gpu lacks", ["kernel", "gemm", "--gpu", "a100", "--m", "64", "--n", "64", "--k", "64", "--dtype",
                                "fp8"], "gpu 'a100_sxm' (sm_80) has no fp8 tensor-core path")
accepts_json("unknown backend, profile timing", GEMM + ["--m", "64", "--backends", "nosuch", "--timing", "profile",
                                                    "--json"],
             lambda j: None if j["coverage"] == ["NO_COVERAGE"] and j["time_ms"] == 0 else f"got {j}")
accepts_json("unknown backend, auto timing", GEMM + ["--m", "64", "--backends", "nosuch", "--json"],
             lambda j: None if "ANALYTIC" in j["coverage"] and 0 < j["time_ms"] < math.inf else f"got {j}")
rejects("--ep on a dense arch", EVAL + ["--ep", "2"], "llama archs are dense: --ep, --dp and --moe-tp must be 1")

# ---- parallel degrees the model cannot take ------------------------------------------------
rejects("heads not divisible by tp", EVAL + ["--tp", "3"], "tp 3 does not divide num_qo_heads 32")
rejects("tp above num_key_value_heads", EVAL + ["--tp", "16"], "tp 16 exceeds num_kv_heads 8")
rejects("experts not divisible by ep", ["eval", "--arch", "deepseek_v3", "--gpu", "h200", "--ep", "24"],
        "ep 24 does not divide num_experts 256")
rejects("experts not divisible by ep (mixtral)", ["eval", "--arch", "mixtral_8x7b", "--gpu", "h200", "--ep", "3"],
        "ep 3 does not divide num_experts 8")
rejects("experts not divisible by ep (gpt_oss)", ["eval", "--arch", "gpt_oss_20b", "--gpu", "h200", "--ep", "64"],
        "ep 64 does not divide num_experts 32")
# TP experts (ep 1 over tp > 1 GPUs): tp must divide every expert's width, checked first.
rejects("TP experts not dividing moe_intermediate (deepseek_v3)",
        ["eval", "--arch", "deepseek_v3", "--gpu", "h200", "--tp", "3", "--ep", "1"],
        "tp 3 does not divide moe_intermediate 2048")
rejects("TP experts not dividing moe_intermediate (gpt_oss)",
        ["eval", "--arch", "gpt_oss_120b", "--gpu", "h200", "--tp", "7", "--ep", "1"],
        "tp 7 does not divide moe_intermediate 2880")
rejects("simulate pinned to TP experts not dividing moe_intermediate",
        ["simulate", "--arch", "deepseek_v3", "--gpu", "h200", "--tp", "3", "--ep", "1", "--batch", "4", "--isl",
         "100", "--osl", "10"], "--tp 3 --ep 1: tp 3 does not divide moe_intermediate 2048")
rejects("--ep on a dense arch (qwen3)", ["eval", "--arch", "qwen3_8b", "--gpu", "h200", "--ep", "2"],
        "qwen3 archs are dense: --ep, --dp and --moe-tp must be 1")
rejects("--tp beyond 32 bits", EVAL + ["--tp", "4294967296"], "--tp", "4294967296")
rejects("tp above kv heads suggests hp", ["eval", "--arch", "llama3_70b", "--gpu", "h200", "--tp", "16"],
        "tp 16 exceeds num_kv_heads 8", "split each request's KV instead: --tp 8 --hp 2")
rejects("hp 0", EVAL + ["--hp", "0"], "--hp", "must be a positive integer (at least 1), got 0")
rejects("hp not dividing the heads", ["eval", "--arch", "llama3_70b", "--gpu", "h200", "--tp", "8", "--hp", "3"],
        "hp*tp 24 does not divide num_qo_heads 64")
rejects("hp with a prefill chunk", ["eval", "--arch", "llama3_70b", "--gpu", "h200", "--tp", "8", "--hp", "2",
                                    "--prefill", "0:4096", "--decode", "16x131072"],
        "hp 2: an iteration with 1 prefill chunk(s)", "hp is a decode-side degree")
rejects("hp on an MoE arch", ["eval", "--arch", "qwen3_30b_a3b", "--gpu", "h200", "--ep", "8", "--hp", "2"],
        "--hp 2: qwen3_moe archs do not take KV-parallel attention or KV-head replication yet",
        "the llama, qwen3, deepseek_v3 families take them")
rejects("deepseek_v3 hp not dividing ep", ["eval", "--arch", "deepseek_v3", "--gpu", "h200", "--ep", "8", "--hp", "3",
                                        "--decode", "8x131072"], "hp 3 does not divide ep 8")
rejects("deepseek_v3 hp with attention tp", ["eval", "--arch", "deepseek_v3", "--gpu", "h200", "--tp", "2", "--ep",
                                            "8", "--hp", "2", "--decode", "8x131072"],
        "under hp its attention is split by KV alone, tp must be 1: tp 2 exceeds max_tp 1")
rejects("deepseek_v3 hp with a prefill chunk", ["eval", "--arch", "deepseek_v3", "--gpu", "h200", "--ep", "8", "--hp",
                                               "2", "--prefill", "0:4096", "--decode", "16x131072"],
        "hp 2: an iteration with 1 prefill chunk(s)", "hp is a decode-side degree")
rejects("deepseek_v3 kv-replicate", ["eval", "--arch", "deepseek_v3", "--gpu", "h200", "--ep", "8", "--kv-replicate"],
        "--kv-replicate: deepseek_v3 archs do not take KV-head replication", "one latent KV head")
rejects("kv-replicate on an MoE arch", ["eval", "--arch", "mixtral_8x7b", "--gpu", "h200", "--kv-replicate"],
        "--kv-replicate: mixtral archs do not take")
rejects("hop-b on an MoE arch without a KV-parallel grain", ["eval", "--arch", "mixtral_8x7b", "--gpu", "h200",
                                                               "--ep", "8", "--hop-b"],
        "--hop-b: mixtral archs do not take KV-parallel attention")
rejects("tp above kv heads also suggests replication", ["eval", "--arch", "qwen3_32b", "--gpu", "h200", "--tp", "16"],
        "tp 16 exceeds num_kv_heads 8", "--tp 8 --hp 2", "(or copy each KV head to 2 GPUs: --kv-replicate)")
rejects("kv-replicate with kv heads not dividing tp", ["eval", "--arch", "llama3_70b", "--gpu", "h200", "--tp",
                                                       "12", "--kv-replicate"],
        "num_kv_heads 8 does not divide tp 12")
rejects("plan --hp on an MoE family", ["plan", "--arch", "mixtral_8x7b", "--gpu", "h200", "--gpus", "8", "--isl",
                                       "1000", "--osl", "100", "--hp", "1,2"],
        "--hp: this model family has no KV-parallel attention grain, so the deployment search takes hp 1 only")
rejects("plan --hop-b on an MoE family", ["plan", "--arch", "mixtral_8x7b", "--gpu", "h200", "--gpus", "8", "--isl",
                                          "1000", "--osl", "100", "--hop-b"],
        "--hop-b: mixtral archs have no KV-parallel attention grain", "(--hop-b is for the llama, qwen3, deepseek_v3 families)")
rejects("plan --hp 0", ["plan", "--arch", "llama3_8b", "--gpu", "h200", "--gpus", "8", "--isl", "1000", "--osl",
                        "100", "--hp", "0"], "--hp", "must be a positive integer (at least 1), got 0")
rejects("sweep --hp not dividing the heads", ["sweep", "--arch", "llama3_70b", "--gpu", "h200", "--tp", "8", "--hp",
                                              "3", "--decode-batch", "1"],
        "--tp 8 --hp 3 on llama3_70b", "hp*tp 24 does not divide num_qo_heads 64")

# ---- config.json files ----------------------------------------------------------------------
with tempfile.TemporaryDirectory() as d:
    d = pathlib.Path(d)
    base = {fam: json.loads((models / f).read_text())
            for fam, f in (("llama", "llama3_8b.json"), ("qwen3", "qwen3_8b.json"),
                           ("qwen3_moe", "qwen3_30b_a3b.json"), ("mixtral", "mixtral_8x7b.json"),
                           ("gpt_oss", "gpt_oss_20b.json"), ("deepseek_v3", "deepseek_v3.json"),
                           ("llama4_maverick", "llama4_maverick.json"))}

    def config(name, family, text=None, **changes):
        p = d / name
        if text is None:
            j = dict(base[family])
            for k, v in changes.items():
                if v is None:
                    j.pop(k, None)
                else:
                    j[k] = v
            text = json.dumps(j)
        p.write_text(text)
        return ["eval", "--model-config", str(p), "--family", family, "--gpu", "h200", "--decode", "8x512"]

    rejects("config not JSON", config("trunc.json", "llama", text='{"hidden_size": 4096,'),
            str(d / "trunc.json") + ": not valid JSON", "line 1, column 22")
    rejects("config not an object", config("list.json", "llama", text="[4096]"),
            "must hold a JSON object, got array")
    rejects("config missing key (llama)", config("nohidden.json", "llama", hidden_size=None),
            "missing key 'hidden_size'")
    rejects("config missing key (qwen3_moe)", config("nohd.json", "qwen3_moe", head_dim=None),
            "missing key 'head_dim'")
    rejects("config missing key (qwen3)", config("nohd3.json", "qwen3", head_dim=None), "missing key 'head_dim'")
    rejects("config missing key (mixtral)", config("noexp.json", "mixtral", num_local_experts=None),
            "missing key 'num_local_experts'")
    rejects("config missing key (gpt_oss)", config("nosw.json", "gpt_oss", sliding_window=None),
            "missing key 'sliding_window'")
    rejects("config odd layer count (gpt_oss)", config("odd.json", "gpt_oss", num_hidden_layers=23, layer_types=None),
            "num_layers 23 is odd", "layer pair, so it must be even")
    rejects("config layer_types not alternating (gpt_oss)",
            config("lt.json", "gpt_oss", num_hidden_layers=2, layer_types=["full_attention", "full_attention"]),
            'layer_types ["full_attention","full_attention"] is not 2 entries alternating')
    rejects("config quantization (gpt_oss)", config("awq.json", "gpt_oss", quantization_config={"quant_method": "awq"}),
            "quantization_config.quant_method 'awq' is not modelled", "override it with --quant")
    rejects("config modelopt algo (llama)",
            config("w4.json", "llama", quantization_config={"quant_method": "modelopt", "quant_algo": "W4A16_AWQ"}),
            "quantization_config.quant_algo 'W4A16_AWQ' is not modelled (FP8, FP8_BLOCK_SCALES, NVFP4)")
    # NVIDIA's checkpoints: hf_quant_config.json beside the config, read with it.
    (d / "mo_hf_quant_config.json").write_text('{"producer": {"name": "modelopt"}}')
    rejects("hf_quant_config without quantization", config("mo_config.json", "llama"),
            str(d / "mo_hf_quant_config.json") + ': an hf_quant_config.json must hold a "quantization" object')
    (d / "kv_hf_quant_config.json").write_text('{"quantization": {"quant_algo": "FP8", "kv_cache_quant_algo": "INT8"}}')
    rejects("hf_quant_config kv algo", config("kv_config.json", "llama"),
            "hf_quant_config.kv_cache_quant_algo 'INT8' is not modelled (FP8 or none)", "--kv-dtype")
    quant = ["eval", "--arch", "llama3_8b", "--gpu", "h100", "--decode", "8x512"]
    rejects("--quant unknown format", quant + ["--quant", "int3"],
            "--quant 'int3' is not a weight format costdsl models", "int4; experts also mxfp4_mxfp8)")
    rejects("--quant int4 for every GEMM", quant + ["--quant", "int4"],
            "--quant int4: int4 weight-only is modelled for routed experts only (--quant moe=int4)")
    rejects("--quant W4A8 for the dense GEMMs", quant + ["--quant", "gemm=mxfp4_mxfp8"],
            "--quant gemm mxfp4_mxfp8: W4A8 (mxfp4 weights, MXFP8 activations) is modelled for routed experts only "
            "(--quant moe=mxfp4_mxfp8)")
    rejects("--quant unknown component", quant + ["--quant", "gemm=fp8,attn=bf16"],
            "--quant 'attn=bf16': expected MODE or gemm=MODE,moe=MODE")
    rejects("--kv-dtype fp4", quant + ["--kv-dtype", "fp4"], "--kv-dtype 'fp4' is not a KV-cache dtype (bf16, fp16, fp8)")
    rejects("--fp8-from unknown producer", quant + ["--quant", "fp8", "--fp8-from", "norm,rope"],
            "--fp8-from 'rope': expected a comma-separated list of norm, attention, activation (or none)")
    rejects("--fp8-from without per-tensor fp8", quant + ["--quant", "fp8_block", "--fp8-from", "attention"],
            "fp8 producers (attention): a quantize fused into the kernel before a projection is modelled for "
            "per-tensor fp8 GEMMs with static scales (gemm=fp8), not gemm=fp8_block")
    rejects("validate --threads 0", ["validate", "--deployments", str(d / "mo_config.json"), "--threads", "0"],
            "--threads: Value 0 not in range 1 to 256")
    rejects("--quant nvfp4 on a GPU without fp4", quant + ["--quant", "nvfp4"], "has no fp4 tensor-core path")
    rejects("config missing key (deepseek_v3)", config("nokv.json", "deepseek_v3", kv_lora_rank=None),
            "missing key 'kv_lora_rank'")
    rejects("config string dim", config("str.json", "llama", num_attention_heads="32"),
            "'num_attention_heads' must be an integer, got \"32\"")
    rejects("config float dim", config("float.json", "qwen3_moe", num_experts=128.0),
            "'num_experts' must be an integer, got 128.0")
    rejects("config bool dim", config("bool.json", "deepseek_v3", n_routed_experts=True),
            "'n_routed_experts' must be an integer, got true")
    rejects("config zero dim", config("zero.json", "qwen3_moe", num_hidden_layers=0),
            "'num_hidden_layers' is 0; it must be at least 1")
    rejects("config negative dim", config("neg.json", "deepseek_v3", v_head_dim=-128),
            "'v_head_dim' is -128; it must be at least 1")
    rejects("config 64-bit dim", config("u64.json", "llama", text=json.dumps(base["llama"]).replace(
        '"hidden_size": 4096', '"hidden_size": 18446744073709551615')),
            "'hidden_size' is 18446744073709551615; it must fit in 32 bits")
    rejects("config overflow (llama)", config("big.json", "llama", intermediate_size=2 ** 31),
            "2*intermediate/tp = 2 * 2147483648 overflows 32 bits")
    rejects("config overflow (qwen3_moe)", config("bigq.json", "qwen3_moe", head_dim=2 ** 31),
            "overflows 32 bits")
    rejects("config overflow (deepseek_v3)",
            config("bigd.json", "deepseek_v3", n_shared_experts=3, moe_intermediate_size=2 ** 31),
            "n_shared_experts 3 * moe_intermediate_size 2147483648", "overflows 32 bits")
    rejects("config tp above kv heads, not dividing (qwen3_moe)", config("q.json", "qwen3_moe") + ["--tp", "6", "--ep", "6"],
            "num_kv_heads 4 does not divide tp 6")
    rejects("config hp × tp not dividing the FFN (llama)",
            config("ffn.json", "llama", intermediate_size=14000) + ["--tp", "8", "--hp", "4"],
            "hp*tp 32 does not divide intermediate 14000")
    rejects("config experts vs ep (qwen3_moe)", config("q100.json", "qwen3_moe", num_experts=100) + ["--ep", "8"],
            "ep 8 does not divide num_experts 100")
    rejects("config MoE step no llama4 family reads",
            config("step3.json", "llama4_maverick", interleave_moe_layer_step=3),
            "interleave_moe_layer_step 3 is not 2 (llama4_maverick)", "read 1 (llama4: every layer MoE, Scout)")
    rejects("config dense width not dividing tp (llama4_maverick)",
            config("mlp.json", "llama4_maverick", intermediate_size_mlp=16380) + ["--tp", "8", "--ep", "8"],
            "tp 8 does not divide intermediate 16380")
    # Without --family the family comes from `architectures` (else `model_type`); an unknown one names
    # what it found, the rule and every supported architecture.
    def inferred(args):
        i = args.index("--family")
        return args[:i] + args[i + 2:]

    rejects("config unknown architecture",
            inferred(config("gpt2.json", "llama", architectures=["GPT2LMHeadModel"], model_type="gpt2")),
            str(d / "gpt2.json"), 'architectures ["GPT2LMHeadModel"]',
            'model_type "gpt2"', "first known architectures entry", "MixtralForCausalLM (mixtral)", "--family")
    rejects("config MoE step no llama4 family reads, family inferred",
            inferred(config("step3i.json", "llama4_maverick", interleave_moe_layer_step=3)),
            "interleave_moe_layer_step 3 is not 1 (llama4)", "2 (llama4_maverick: dense and MoE layers alternating")
    rejects("config without architectures or model_type",
            inferred(config("bare.json", "llama", architectures=None, model_type=None)),
            "architectures absent (model_type absent)")

    # ---- a malformed profile table through --profile-dir -------------------------------
    prof = d / "profiles" / "h200_sxm"
    prof.mkdir(parents=True)
    (prof / "gemm.csv").write_text("dtype,n,k,m,backend,time_ms\nbf16,4096,4096,64,cublaslt,fast\n")
    rejects("profile table non-numeric time", GEMM + ["--m", "64", "--profile-dir", str(d / "profiles")],
            str(prof / "gemm.csv") + ":2:28: column 'time_ms': 'fast' is not a number")
    (prof / "gemm.csv").write_text("dtype,n,k,m,backend,time_ms\rbf16,4096,4096,64,cublaslt,0.1\r")
    rejects("profile table bare CR", GEMM + ["--m", "64", "--profile-dir", str(d / "profiles")],
            "gemm.csv:1:28: control character 0x0D")
    (prof / "gemm.csv").write_text("dtype,n,k,m,backend,time_ms\nbf16,4096,4096,64,cublaslt,0.05\n")
    accepts_json("profile table off-grid query is EXTRAPOLATED",
                 GEMM + ["--m", "1000000000", "--profile-dir", str(d / "profiles"), "--timing", "profile", "--json"],
                 lambda j: None if "EXTRAPOLATED" in j["coverage"] and math.isfinite(j["time_ms"])
                 and j["time_ms"] > 0 else f"got {j['time_ms']} {j['coverage']}")
    empty = d / "empty_profiles"
    empty.mkdir()
    accepts_json("no profile table under --timing profile is NO_COVERAGE",
                 EVAL + ["--decode", "8x512", "--timing", "profile", "--profile-dir", str(empty), "--json"],
                 lambda j: finite_total(j, "NO_COVERAGE"))


# ---- import aiconfigurator / validate: measurement tables in aiconfigurator's schema ---------
GEMM_HDR = "framework,version,device,op_name,kernel_source,gemm_dtype,m,n,k,latency\n"
GEMM_OK = "SGLang,0.5.14,H100,gemm,torch,bfloat16,16,4096,4096,0.03\n"
with tempfile.TemporaryDirectory() as d:
    d = pathlib.Path(d)

    def tables(name, text, file="t.csv"):
        p = d / name
        p.mkdir()
        if text is not None:
            (p / file).write_text(text)
        return p

    def both(name, path, *needles, accepted=False):
        """The same input through import and validate (the one reader both share)."""
        imp = ["import", "aiconfigurator", str(path), "--gpu", "h100", "--out", str(d / ("out_" + name))]
        val = ["validate", str(path), "--gpu", "h100", "--timing", "roofline"]
        (accepts if accepted else rejects)(f"import: {name}", imp, *needles)
        (accepts if accepted else rejects)(f"validate: {name}", val, *needles)

    p = tables("missing_col", "framework,gemm_dtype,m,n,latency\nSGLang,bfloat16,1,2,0.1\n")
    both("missing column", p, "t.csv:1:1: missing column 'k' for an aiconfigurator gemm table")
    p = tables("bad_cell", GEMM_HDR + "SGLang,0.5.14,H100,gemm,torch,bfloat16,16,4096,4k,0.03\n")
    both("non-numeric shape", p, "t.csv:2:48: column 'k': '4k' is not a whole number")
    p = tables("bad_latency", GEMM_HDR + "SGLang,0.5.14,H100,gemm,torch,bfloat16,16,4096,4096,fast\n")
    both("non-numeric latency", p, "t.csv:2:53: column 'latency': 'fast' is not a number")
    p = tables("short_row", GEMM_HDR + "SGLang,0.5.14,H100,gemm,torch,bfloat16,16,4096\n")
    both("short row", p, "t.csv:2:", "row has 8 cells but the header has 10 columns")
    p = tables("empty", "")
    both("empty file", p, "t.csv:1:1: empty file: no header line")
    p = tables("nothing", None)
    both("no tables in the directory", p, "holds no .csv or .txt table")
    both("directory does not exist", d / "nosuch", "nosuch: no such file or directory")
    p = tables("dir_as_file", None)
    (p / "gemm.csv").mkdir()
    both("a directory where a table should be", p, "gemm.csv: is a directory, not a measurement table")
    p = tables("nan", GEMM_HDR + GEMM_OK + "SGLang,0.5.14,H100,gemm,torch,bfloat16,32,4096,4096,nan\n"
               "SGLang,0.5.14,H100,gemm,torch,bfloat16,64,4096,4096,-0.2\n")
    both("NaN and negative latency are counted skips", p, "latency NaN (a measured time must be finite and > 0)",
         "latency negative", accepted=True)
    p = tables("dtype", GEMM_HDR + GEMM_OK + "SGLang,0.5.14,H100,gemm,torch,int3,16,4096,4096,0.01\n")
    both("unknown dtype is a counted skip", p, "gemm_dtype int3: no costdsl dtype", accepted=True)
    p = tables("op", "framework,version,device,op_name,kernel_source,nccl_dtype,num_gpus,message_size,latency\n"
               "TRTLLM,2.29.2,H100,all_reduce,NCCL,half,8,1024,0.02\n"
               "TRTLLM,2.29.2,H100,broadcast,NCCL,half,8,1024,0.02\n")
    both("unknown op is a counted skip", p, "op_name broadcast: all_reduce and all_gather are imported", accepted=True)
    p = tables("quote", GEMM_HDR + 'SGLang,0.5.14,"H100, SXM",gemm,torch,bfloat16,16,4096,4096,0.03\n')
    both("quoted cell", p, "t.csv:2:15: quoted cells are not supported")
    # Gzipped tables (aiconfigurator's TensorRT-LLM and vLLM exports): damage is an error naming the file.
    packed = gzip.compress((GEMM_HDR + GEMM_OK * 40).encode())
    p = tables("gz_cut", None)
    (p / "gemm_trtllm.csv.gz").write_bytes(packed[:len(packed) // 2])
    both("truncated .csv.gz", p, "gemm_trtllm.csv.gz: truncated gzip stream after")
    p = tables("gz_junk", None)
    (p / "gemm_trtllm.csv.gz").write_bytes(packed + b"junk")
    both("garbage after a .csv.gz's last member", p, "gemm_trtllm.csv.gz: corrupt gzip stream",
         "incorrect header check")
    p = tables("mixed", GEMM_HDR + GEMM_OK + "TRTLLM,1.3.0rc20,H100,gemm,torch,bfloat16,32,4096,4096,0.03\n")
    both("two frameworks in one file", p,
         "t.csv:3:1: framework 'TRTLLM', but the file's rows from line 2 are 'SGLang': one framework per file")
    ok = tables("ok", GEMM_HDR + GEMM_OK)
    rejects("import --gpu unknown", ["import", "aiconfigurator", str(ok), "--gpu", "h300"], "unknown gpu 'h300'")
    rejects("import --hold-out 150", ["import", "aiconfigurator", str(ok), "--gpu", "h100", "--out", str(d / "o"),
                                      "--hold-out", "150"], "--hold-out", "150")
    rejects("import --held-out-dir without --hold-out",
            ["import", "aiconfigurator", str(ok), "--gpu", "h100", "--out", str(d / "o"), "--held-out-dir",
             str(d / "h")], "--held-out-dir needs --hold-out PERCENT > 0")
    rejects("import without a source", ["import", "aiconfigurator", "--gpu", "h100"], "dir")
    rejects("import --framework unknown", ["import", "aiconfigurator", str(ok), "--gpu", "h100", "--out",
                                           str(d / "o"), "--framework", "tensorflow"], "--framework", "tensorflow")
    rejects("import --framework with no table of it",
            ["import", "aiconfigurator", str(ok), "--gpu", "h100", "--out", str(d / "o"), "--framework", "vllm"],
            "--framework vllm:", "holds no table measured with vllm (its tables: sglang)")
    rejects("validate --timing fast", ["validate", str(ok), "--gpu", "h100", "--timing", "fast"], "--timing", "fast")
    accepts_json("validate, profile timing, no table: uncovered, not zero",
                 ["validate", str(ok), "--gpu", "h100", "--timing", "profile", "--profile-dir", str(d / "nothing"),
                  "--json"],
                 lambda j: None if j["families"][0]["rows"] == 0 and j["families"][0]["uncovered"] == 1
                 else f"got {j['families']}")

# ---- costdsl roofline eval / serve: calibration data, parameter files, request lines ---------
with tempfile.TemporaryDirectory() as d:
    d = pathlib.Path(d)
    calib = d / "calibration"
    (calib / "aiconfigurator" / "h100_sxm").mkdir(parents=True)
    (calib / "aiconfigurator" / "h100_sxm" / "gemm.csv").write_text(GEMM_HDR + GEMM_OK)
    EVAL_RF = ["roofline", "eval", str(calib), "--gpus", "h100_sxm"]
    rejects("roofline eval: no calibration directory", ["roofline", "eval", str(d / "nosuch"), "--gpus", "h100"],
            "nosuch: no such directory")
    rejects("roofline eval: no tables for a GPU", ["roofline", "eval", str(calib), "--gpus", "h100,b200"],
            "aiconfigurator/b200_sxm: no such directory (no aiconfigurator tables for gpu 'b200_sxm')")
    rejects("roofline eval: unknown gpu", ["roofline", "eval", str(calib), "--gpus", "h300"], "unknown gpu 'h300'")
    rejects("roofline eval: a GPU named twice", ["roofline", "eval", str(calib), "--gpus", "h100,h100_sxm"],
            "gpu 'h100_sxm' is named twice")
    malformed = d / "malformed"
    (malformed / "aiconfigurator" / "h100_sxm").mkdir(parents=True)
    (malformed / "aiconfigurator" / "h100_sxm" / "gemm.csv").write_text(
        GEMM_HDR + "SGLang,0.5.14,H100,gemm,torch,bfloat16,16,4096,4k,0.03\n")
    rejects("roofline eval: malformed table", ["roofline", "eval", str(malformed), "--gpus", "h100"],
            "gemm.csv:2:48: column 'k': '4k' is not a whole number")
    rejects("roofline eval --params missing file", EVAL_RF + ["--params", str(d / "nosuch.json")],
            "cannot open roofline parameters", "nosuch.json")
    good = json.loads((root / "data" / "roofline.json").read_text())
    params = d / "params.json"
    params.write_text("{ not json")
    rejects("roofline eval --params not JSON", EVAL_RF + ["--params", str(params)], "params.json: not valid JSON")
    params.write_text(json.dumps(good).replace('"overlap_p": 2.', '"overlap_p": NaN, "x": 2.', 1))
    rejects("roofline eval --params NaN", EVAL_RF + ["--params", str(params)],
            "not valid JSON at field 'gemm.overlap_p' (NaN is not a JSON number: a value must be finite)")
    bad = json.loads(json.dumps(good))
    bad["attention"]["eff_mem"] = 1.5
    params.write_text(json.dumps(bad))
    rejects("roofline eval --params efficiency above 1", EVAL_RF + ["--params", str(params)],
            "field 'attention.eff_mem' must be an efficiency in (0, 1], got 1.5")
    del bad["attention"]["eff_mem"]
    params.write_text(json.dumps(bad))
    rejects("roofline eval --params missing field", EVAL_RF + ["--params", str(params)],
            "field 'attention.eff_mem' is missing")
    rejects("roofline serve without --gpus", ["roofline", "serve", str(calib)], "--gpus is required")

    # serve: every bad request line is answered {"error": ...} naming field, value and rule;
    # the good line after them is served and the process exits 0 at the end of its input.
    requests = [
        ('not json', "request 1: not valid JSON"),
        ('[1, 2]', "request 2: must be a JSON object, got array"),
        ('{"op": "fit"}', "request 3: field 'op': 'fit' is not one of \"groups\", \"rows\", \"subset\", \"eval\""),
        ('{"op": "eval", "ids": [0], "params": {"gemm": {"overlap_q": 2}}}',
         "request 4: params: field 'gemm.overlap_q' is not a roofline parameter (fields under 'gemm': eff_compute, "
         "eff_tile_m64, k_overhead, overlap_p, memory)"),
        ('{"op": "eval", "ids": [0], "params": {"gemmm": {}}}',
         "field 'gemmm' is not a roofline parameter (top-level fields: gemm, elementwise, attention, collective, "
         "custom_all_reduce, p2p, energy)"),
        ('{"op": "eval", "ids": [0], "params": {"gemm": {"overlap_p": NaN}}}',
         "request 6: not valid JSON at field 'params.gemm.overlap_p' (NaN is not a JSON number"),
        ('{"op": "eval", "ids": [0], "params": {"p2p": {"inter_node": {"alpha_s": -Infinity}}}}',
         "field 'params.p2p.inter_node.alpha_s' (-Infinity is not a JSON number"),
        ('{"op": "eval", "ids": [0], "params": {"gemm": {"memory": {"eff_max": 1.5}}}}',
         "request 8: params: field 'gemm.memory.eff_max' must be an efficiency in (0, 1], got 1.5"),
        ('{"op": "eval", "ids": [0], "params": {"gemm": {"overlap_p": 0.5}}}',
         "field 'gemm.overlap_p' must be a finite number >= 1, got 0.5"),
        ('{"op": "eval", "ids": [0], "params": {"gemm": {"overlap_p": "2"}}}',
         "field 'gemm.overlap_p' must be a number, got string"),
        ('{"op": "eval", "ids": [0], "params": {"gemm": {"memory": 3}}}',
         "field 'gemm.memory' must be an object (its fields: eff_max, sat_bytes, floor_s), got number"),
        ('{"op": "eval", "ids": [5]}', "field 'ids[0]': 5 is not a row id (ids run 0..0"),
        ('{"op": "eval", "ids": [-1]}', "field 'ids[0]': -1 is not a row id"),
        ('{"op": "eval", "subset": "nosuch"}', "field 'subset': \"nosuch\" is no subset defined by op \"subset\""),
        ('{"op": "eval", "ids": [0], "out": "l3"}', "field 'out': 'l3' is not one of \"pred\", \"l1\", \"l2\""),
        ('{"op": "eval", "ids": [0], "subset": "s"}', "exactly one of 'subset'"),
        ('{"op": "eval", "ids": [0], "param": {}}', "unknown field 'param' for op 'eval' (its fields: op, params, "
                                                   "subset, ids, out)"),
        ('{"op": "rows", "groups": ["gemm.fp9"]}', "'gemm.fp9' is no group of the rows read (they are: gemm.bf16)"),
        ('{"op": "subset", "name": "s", "ids": [0], "weights": [NaN]}', "field 'weights[0]' (NaN is not a JSON"),
        ('{"op": "subset", "name": "s", "ids": [0], "weights": [0]}', "field 'weights[0]': 0 must be a finite "
                                                                      "number > 0"),
        ('{"op": "subset", "name": "s", "ids": [0, 0], "weights": [1]}', "field 'weights' must be an array of 2"),
    ]
    count += 1
    lines = [r for r, _ in requests] + ['{"op": "eval", "ids": [0], "out": "l1"}']
    try:
        r = subprocess.run([costdsl, "roofline", "serve", str(calib), "--gpus", "h100_sxm"],
                           input="\n".join(lines) + "\n", capture_output=True, text=True, timeout=120)
        answers = [json.loads(a) for a in r.stdout.splitlines()]
        if r.returncode != 0 or len(answers) != len(lines):
            failures.append(f"roofline serve bad requests: exit {r.returncode}, {len(answers)} answers for "
                            f"{len(lines)} lines: {r.stderr[-800:]}")
        else:
            for (req, needle), a in zip(requests, answers):
                if needle not in a.get("error", ""):
                    failures.append(f"roofline serve {req}: answer lacks {needle!r}: {a}")
            if not math.isfinite(answers[-1].get("loss", math.nan)):
                failures.append(f"roofline serve: the good request after the bad ones: {answers[-1]}")
    except (subprocess.TimeoutExpired, json.JSONDecodeError) as e:
        failures.append(f"roofline serve bad requests: {e}")

# ---- costdsl plan: impossible deployments and bad search inputs --------------------
PLAN = ["plan", "--arch", "llama3_8b", "--gpu", "h200", "--gpus", "2", "--isl", "1000", "--osl", "50"]
rejects("plan --gpus 0", PLAN[:5] + ["--gpus", "0", "--isl", "1000", "--osl", "50"], "--gpus",
        "must be a positive integer (at least 1), got 0")
rejects("plan --gpus 100000", PLAN[:5] + ["--gpus", "100000", "--isl", "1000", "--osl", "50"],
        "--gpus 100000: at most 65536")
rejects("plan model larger than the GPUs", ["plan", "--arch", "llama3_405b", "--gpu", "h200", "--gpus", "1", "--isl",
                                            "1000", "--osl", "50"],
        "the model does not fit on 1 x h200_sxm", "needs 811.7 GB of weights per GPU", "has 151.4 GB",
        "136.3 GB after the 10% reserve")
rejects("plan model larger than 4 GPUs", ["plan", "--arch", "llama3_405b", "--gpu", "h100", "--gpus", "4", "--isl",
                                          "1000", "--osl", "50"],
        "the model does not fit on 4 x h100_sxm: its leanest deployment (tp 4, 4 GPUs)", "of weights per GPU")
rejects("plan ISL over the context", ["plan", "--arch", "llama3_70b", "--gpu", "h200", "--gpus", "8", "--isl", "9000",
                                      "--osl", "10"],
        "--isl 9000 + --osl 10 = 9010 tokens exceeds the model's context (max_position_embeddings 8192)")
rejects("plan ISL + OSL over the context", ["plan", "--arch", "llama3_70b", "--gpu", "h200", "--gpus", "8", "--isl",
                                            "8000", "--osl", "500"], "8500 tokens exceeds the model's context")
rejects("plan --osl 1", PLAN[:-1] + ["1"], "--osl 1: must be at least 2 (TPOT is the time between output tokens)")
rejects("plan --isl 0", PLAN[:7] + ["--isl", "0", "--osl", "50"], "--isl", "got 0")
rejects("plan --prefix = --isl", PLAN + ["--prefix", "1000"],
        "--prefix 1000 must be below --isl 1000 (the last prompt token is always computed)")
rejects("plan --rate 0", PLAN + ["--rate", "0"], "--rate", "must be a positive finite number, got 0")
rejects("plan --rate nan", PLAN + ["--rate", "nan"], "--rate", "must be a positive finite number, got nan")
rejects("plan --ttft -5", PLAN + ["--ttft", "-5"], "--ttft", "must be a positive finite number, got -5")
rejects("plan --tpot inf", PLAN + ["--tpot", "inf"], "--tpot", "must be a positive finite number, got inf")
rejects("plan --rate with --concurrency", PLAN + ["--rate", "5", "--concurrency", "4"], "--concurrency", "--rate")
rejects("plan --concurrency 0", PLAN + ["--concurrency", "0"], "--concurrency", "got 0")
rejects("plan --mode both-ish", PLAN + ["--mode", "all"], "--mode", "all")
rejects("plan --percentile 95", PLAN + ["--percentile", "95"], "--percentile", "95")
rejects("plan --token-budgets 2048,0", PLAN + ["--token-budgets", "2048,0"], "--token-budgets", "got 0")
rejects("plan without --isl", PLAN[:7] + ["--osl", "50"], "--isl is required")
rejects("plan without --arch", ["plan", "--gpu", "h200", "--gpus", "2", "--isl", "10", "--osl", "10"], "--arch")
accepts_json("plan: nothing meets the SLA is an answer, not an error", PLAN + ["--ttft", "0.001", "--json"],
             lambda j: None if j["top"]["aggregated"] == [] and all(
                 math.isfinite(c["tokens_per_s_gpu"]) for c in j["candidates"]) else f"got {j['top']}")

# ---- costdsl simulate: a pinned deployment the flags cannot describe ------------------
SIM = ["simulate", "--arch", "llama3_8b", "--gpu", "h200", "--isl", "1000", "--osl", "50", "--batch", "4"]
rejects("simulate without --gpu", ["simulate", "--arch", "llama3_8b", "--isl", "1000", "--osl", "50", "--batch", "4"],
        "--gpu is required")
rejects("simulate without --batch", SIM[:-2], "--batch is required")
rejects("simulate --batch 0", SIM[:-1] + ["0"], "--batch", "must be a positive integer (at least 1), got 0")
rejects("simulate --tp 0", SIM + ["--tp", "0"], "--tp", "must be a positive integer (at least 1), got 0")
rejects("simulate --tp 3 not dividing the heads", ["simulate", "--arch", "llama3_70b", "--gpu", "h200", "--isl", "1000",
                                                    "--osl", "50", "--batch", "4", "--tp", "3"],
        "--tp 3: tp 3 does not divide num_qo_heads 64")
rejects("simulate MoE --ep 6 not dividing the experts", ["simulate", "--arch", "qwen3_30b_a3b", "--gpu", "h200",
                                                           "--isl", "1000", "--osl", "50", "--batch", "4", "--ep", "6"],
        "--tp 1 --ep 6: ep 6 does not divide num_experts 128")
rejects("simulate --ep on a dense arch", SIM + ["--ep", "2"], "--tp 1 --ep 2", "--ep, --dp and --moe-tp must be 1")
rejects("--moe-tp on a dense arch", EVAL + ["--moe-tp", "2"], "llama archs are dense: --ep, --dp and --moe-tp must be 1")
rejects("--moe-tp 0", EVAL + ["--moe-tp", "0"], "--moe-tp", "must be a positive integer")
rejects("--moe-tp not dividing ep", ["eval", "--arch", "qwen3_30b_a3b", "--gpu", "h100", "--tp", "4", "--moe-tp", "3",
        "--decode", "4x100"], "moe_tp 3 with ep 4: moe_tp must divide ep")
rejects("--moe-tp under attention DP", ["eval", "--arch", "qwen3_30b_a3b", "--gpu", "h100", "--tp", "2", "--dp", "2",
        "--moe-tp", "2", "--decode", "4x100"], "experts split both ways are modelled over one attention group")
rejects("--moe-tp with TP experts", ["eval", "--arch", "qwen3_30b_a3b", "--gpu", "h100", "--tp", "4", "--ep", "1",
        "--moe-tp", "2", "--decode", "4x100"], "moe_tp 2: TP experts (ep 1) are split over the attention group")
rejects("simulate --moe-tp not dividing ep", ["simulate", "--arch", "qwen3_30b_a3b", "--gpu", "h200", "--isl", "1000",
        "--osl", "50", "--batch", "4", "--tp", "4", "--moe-tp", "3"], "--tp 4 --moe-tp 3", "moe_tp must divide ep")
rejects("simulate unknown arch", ["simulate", "--arch", "gpt5", "--gpu", "h200", "--isl", "10", "--osl", "10",
                                  "--batch", "1"], "unknown arch 'gpt5'")
rejects("simulate --rate with --concurrency", SIM + ["--rate", "5", "--concurrency", "4"], "--concurrency", "--rate")
rejects("simulate --rate 0", SIM + ["--rate", "0"], "--rate", "must be a positive finite number, got 0")
rejects("simulate --requests without --rate", SIM + ["--requests", "10"], "--requests requires --rate")
rejects("simulate --client-start with --rate", SIM + ["--rate", "5", "--client-start", "staggered"],
        "--client-start", "--rate")
rejects("simulate --warmup with --rate", SIM + ["--rate", "5", "--warmup", "drained"], "--warmup", "--rate")
rejects("simulate --warmup sideways", SIM + ["--warmup", "sideways"], "--warmup", "sideways")
rejects("simulate --rounds 0", SIM + ["--rounds", "0"], "--rounds", "0")
rejects("simulate --draft-tokens past the bound", SIM + ["--draft-tokens", "17"], "--draft-tokens", "17")
rejects("simulate --draft-acceptance above 1", SIM + ["--draft-tokens", "2", "--draft-acceptance", "0.9,1.5"],
        "--draft-acceptance", "1.5")
rejects("simulate --draft-tokens beyond the token budget", SIM + ["--draft-tokens", "3", "--token-budget", "2"],
        "max_batch_tokens 2 is below the 4 rows one speculative decode verifies")
rejects("simulate too many rounds of clients", SIM + ["--concurrency", "500000", "--rounds", "10000"],
        "10000 rounds of 500000 clients are more requests than a simulation holds")
rejects("validate --statistic p99", ["validate", "--deployments", __file__, "--statistic", "p99"], "--statistic", "p99")
rejects("validate --rounds without --deployments", ["validate", "--rounds", "3", __file__], "--rounds",
        "--deployments")
rejects("simulate --mode disagg without --prefill-workers", SIM + ["--mode", "disagg", "--decode-workers", "1"],
        "--prefill-workers: --mode disagg needs the number of prefill workers")
rejects("simulate --mode disagg without --decode-workers", SIM + ["--mode", "disagg", "--prefill-workers", "1"],
        "--decode-workers: --mode disagg needs the number of decode workers")
rejects("simulate --prefill-workers in agg mode", SIM + ["--prefill-workers", "1"],
        "--prefill-workers: a disaggregated deployment's flag; give --mode disagg")
rejects("simulate --prefill-tp 3 not dividing the heads", ["simulate", "--arch", "llama3_70b", "--gpu", "h200",
                                                             "--isl", "1000", "--osl", "50", "--batch", "4", "--tp",
                                                             "8", "--mode", "disagg", "--prefill-workers", "1",
                                                             "--decode-workers", "1", "--prefill-tp", "3"],
        "--prefill-tp 3: tp 3 does not divide num_qo_heads 64")
rejects("simulate --hp 2 aggregated", SIM + ["--hp", "2"], "--hp 2: KV-parallel attention is decode-side only",
        "--mode disagg")
rejects("simulate --kv-replicate", SIM + ["--kv-replicate"], "--kv-replicate")
rejects("simulate model larger than the worker", ["simulate", "--arch", "llama3_405b", "--gpu", "h100", "--isl", "1000",
                                                  "--osl", "50", "--batch", "4", "--tp", "4"],
        "--tp 4: the model does not fit", "of weights per GPU on 4 GPUs", "after the 10% reserve")
rejects("simulate ISL + OSL over the context", ["simulate", "--arch", "llama3_70b", "--gpu", "h200", "--tp", "8",
                                                "--isl", "8000", "--osl", "500", "--batch", "4"],
        "--isl 8000 + --osl 500 = 8500 tokens exceeds the model's context (max_position_embeddings 8192)")
rejects("simulate --osl 1", SIM[:-3] + ["1", "--batch", "4"], "--osl 1: must be at least 2")
rejects("simulate --prefix = --isl", SIM + ["--prefix", "1000"], "--prefix 1000 must be below --isl 1000")
rejects("simulate without --isl", ["simulate", "--arch", "llama3_8b", "--gpu", "h200", "--osl", "50", "--batch", "4"],
        "--isl is required")
rejects("simulate --concurrency not a multiple of --replicas", SIM + ["--replicas", "2", "--concurrency", "3"],
        "--concurrency 3 must be a multiple of --replicas 2")
rejects("simulate --replicas past 65536 GPUs", SIM + ["--replicas", "70000"], "--replicas 70000",
        "at most 65536")
rejects("simulate --concurrency past a million clients", SIM + ["--concurrency", "2000000"],
        "--concurrency 2000000: 2000000 clients per replica, at most 1000000")
rejects("simulate --batch 4e9 (the default concurrency)", SIM[:-1] + ["4000000000"], "--concurrency 4000000000",
        "at most 1000000")
rejects("simulate --requests past 10^7", SIM + ["--rate", "5", "--requests", "20000000"],
        "--requests 20000000: at most 10000000 measured requests per replica")
rejects("simulate --framework unknown", SIM + ["--framework", "llamacpp"], "--framework", "llamacpp not in")
rejects("simulate --batching unknown", SIM + ["--batching", "eager"], "--batching", "eager not in")
rejects("simulate --frontend-ms -1", SIM + ["--frontend-ms", "-1"], "--frontend-ms", "must be a finite number >= 0")
rejects("simulate --reserve-fraction 1", SIM + ["--reserve-fraction", "1"], "--reserve-fraction", "not in range")
rejects("simulate whole prompts over the token budget", SIM + ["--framework", "trtllm", "--token-budget", "512"],
        "--token-budget 512: below the prompt's 1000 new tokens while chunked prefill is off (--framework trtllm)")
rejects("plan whole prompts over the token budget",
        ["plan", "--arch", "llama3_8b", "--gpu", "h200", "--gpus", "1", "--isl", "1000", "--osl", "50",
         "--chunked-prefill", "off", "--token-budgets", "512"],
        "--token-budgets 512: below the prompt's 1000 new tokens, and chunked prefill is off")
with tempfile.TemporaryDirectory() as d:
    trace = pathlib.Path(d) / "trace.csv"
    trace.write_text("arrival_s,input_tokens,output_tokens\n0,100,20\n0.5,100,1\n")
    TRACE = ["simulate", "--arch", "llama3_8b", "--gpu", "h200", "--batch", "4", "--trace", str(trace)]
    rejects("simulate trace request with one output token", TRACE,
            "request 1 (line 3): output_tokens 1 must be at least 2")
    rejects("simulate --trace with --isl", TRACE + ["--isl", "100"], "--isl: a trace gives each request's lengths")
    rejects("simulate --trace with --rate", TRACE + ["--rate", "5"], "--rate", "--trace")
    trace.write_text("arrival_s,input_tokens,output_tokens\n0,100,20\n")
    rejects("simulate --replicas above the trace's requests", TRACE + ["--replicas", "2"],
            "--replicas 2: the trace holds 1 requests")

# ---- accepted: finite and flagged ------------------------------------------------------------
accepts_json("zero-token iteration", EVAL + ["--json"],
             lambda j: None if total_of(j)["time_ms"] == 0 and total_of(j)["coverage"] == [] else f"got {total_of(j)}")
accepts_json("10^9 tokens", EVAL + ["--prefill", "0:1000000000", "--json"], lambda j: finite_total(j, "ANALYTIC"))
accepts_json("2^20 decodes at KV 2^32-1", EVAL + ["--decode", "1048576x4294967295", "--json"],
             lambda j: finite_total(j, "ANALYTIC"))
accepts_json("MoE 10^6 tokens", ["eval", "--arch", "qwen3_30b_a3b", "--gpu", "h200", "--ep", "8", "--prefill",
                                 "0:1000000", "--json"], lambda j: finite_total(j, "ANALYTIC"))
rejects("MoE 10^9 tokens", ["eval", "--arch", "qwen3_30b_a3b", "--gpu", "h200", "--prefill", "0:1000000000"],
        "moe routing: tokens 1000000000 * top_k 8 overflows 32 bits")

for f in failures:
    print("FAIL:", f)
print(f"bad_input cli: {count} case(s), {len(failures)} failure(s)")
sys.exit(1 if failures else 0)
