#!/usr/bin/env python3
"""End-to-end checks of the costdsl CLI: the commands the issues name, their JSON,
exit codes for bad input, and the pictures (through check_svg.py).

usage: cli_test.py COSTDSL CHECK_SVG_PY
"""
import gzip
import json
import os
import pathlib
import subprocess
import sys
import tempfile

from cli_checks import Checks

costdsl, check_svg = sys.argv[1], sys.argv[2]
root = pathlib.Path(__file__).resolve().parents[2]
checks = Checks(costdsl)
failures, run, check = checks.failures, checks.run, checks.check


# The four kernel commands of the L1 issue, exactly as written there.
for args in (["kernel", "gemm", "--gpu", "h200", "--dtype", "bf16", "--m", "4096", "--n", "4096", "--k", "4096"],
             ["kernel", "attn_decode", "--gpu", "h200", "--num-qo-heads", "8", "--num-kv-heads", "1", "--head-dim",
              "128", "--batch", "64", "--total-kv", "131072", "--kv-dtype", "bf16"],
             ["kernel", "attn_prefill", "--gpu", "h200", "--num-qo-heads", "32", "--num-kv-heads", "8", "--head-dim",
              "128", "--batch", "1", "--prefix", "0", "--append", "4096"],
             ["kernel", "all_reduce", "--gpu", "h200", "--num-gpus", "8", "--bytes", "33554432"]):
    r = run(*args, "--json")
    j = json.loads(r.stdout or "{}")
    for key in ("kind", "gpu", "config", "input", "time_ms", "flops", "bytes", "energy_j", "coverage", "backend",
                "source"):
        check(key in j, f"{args[1]} --json lacks {key}")
    check(j.get("time_ms", 0) > 0, f"{args[1]}: time_ms must be positive")

# The kind list: one short line per kind (fields joined, not each padded), the same kinds as --json.
listing = run("kernels").stdout.splitlines()
kinds = [k["kind"] for k in json.loads(run("kernels", "--json").stdout or "[]")]
check(len(kinds) >= 20 and len(listing) == len(kinds), f"kernels: {len(listing)} lines for {len(kinds)} kinds")
check(all(line.split()[0] == kind for line, kind in zip(listing, kinds)), "kernels: one line per kind, in order")
check(max(map(len, listing), default=0) <= 160, f"kernels: lines up to {max(map(len, listing), default=0)} chars")
check(any("config: dtype, n, k" in line and "input: m" in line for line in listing), "kernels: gemm's fields")

gemm = json.loads(run("kernel", "gemm", "--gpu", "H200", "--m", "4096", "--n", "4096", "--k", "4096", "--json").stdout)
check(0.15 < gemm["time_ms"] < 0.2, f"bf16 4096^3 GEMM on H200 should be ~0.17 ms, got {gemm['time_ms']}")
ar = json.loads(run("kernel", "all_reduce", "--gpu", "h200", "--num-gpus", "8", "--bytes", "33554432", "--json").stdout)
check(0.15 < ar["time_ms"] < 0.25, f"8-GPU 32 MiB all-reduce should be ~0.2 ms, got {ar['time_ms']}")

# Bad input exits 2 and names the flag or value.
for args, needle in ((["kernel", "gemm", "--gpu", "h200", "--m", "-1", "--n", "1", "--k", "1"], "--m"),
                     (["kernel", "gemm", "--gpu", "h300", "--m", "1", "--n", "1", "--k", "1"], "h300"),
                     (["kernel", "gemm", "--gpu", "h200", "--m", "1", "--n", "1"], "--k"),
                     (["kernel", "gemm", "--gpu", "h200", "--m", "1", "--n", "1", "--k", "1", "--dtype", "int3"], "int3"),
                     (["eval", "--arch", "llama3_70b", "--tp", "16", "--gpu", "h200"], "tp 16"),
                     (["eval", "--arch", "llama9", "--gpu", "h200"], "llama9"),
                     (["eval", "--arch", "llama3_8b", "--gpu", "h200", "--decode", "64y2048"], "64y2048"),
                     (["kernel", "nosuchkind", "--gpu", "h200"], "nosuchkind")):
    r = run(*args, expect=2)
    check(needle in r.stderr + r.stdout, f"{' '.join(args)}: message does not name {needle!r}: {r.stderr}")

# eval --json: re-aggregating the slot rows over manifest.nodes gives the total.
r = run("eval", "--arch", "llama3_70b", "--tp", "8", "--gpu", "h200", "--prefill", "0:4096", "--decode", "64x2048",
        "--json", "--bounds")
j = json.loads(r.stdout or "{}")


def aggregate(i, nodes=j["manifest"]["nodes"], slots=j["slots"]):
    n = nodes[i]
    if n["kind"] == "leaf":
        return slots[n["slot"]]["time_ms"], slots[n["slot"]]["flops"]
    first, count = n["children"]
    kids = [aggregate(c, nodes, slots) for c in range(first, first + count)]
    flops = sum(k[1] for k in kids)
    if n["kind"] == "sum":
        return sum(k[0] for k in kids), flops
    if n["kind"] in ("max", "parallel"):
        t = max(k[0] for k in kids)
        return (t / n["overlap"] if n["kind"] == "parallel" else t), flops
    if n["kind"] == "scale":
        return kids[0][0] * n["n"], kids[0][1] * n["n"]
    return kids[0]


t, f = aggregate(0)
check(abs(t - j["total"]["time_ms"]) <= 1e-9 * t, f"re-aggregated time {t} != total {j['total']['time_ms']}")
check(abs(f - j["total"]["flops"]) <= 1e-9 * f, "re-aggregated flops differ from the total")
check(2 < j["total"]["time_ms"] < 1000, "Llama-3-70B TP8 iteration time implausible")
b = j["bounds"]
check(0 < b["hardware_bound_ms"] <= b["total_ms"], "hardware bound must lie in (0, total]")
check(b["without_communication_ms"] < b["total_ms"], "removing TP all-reduces must shorten the iteration")

# MoE archs: DP attention groups are a run-time fanout, any dp = ep / tp works.
for args, dp in ((["--arch", "qwen3_30b_a3b", "--ep", "8"], 8), (["--arch", "qwen3_235b_a22b", "--tp", "4", "--ep", "8"], 2),
                 (["--arch", "deepseek_v3", "--tp", "1", "--dp", "8"], 8),
                 (["--model-config", str(root / "data/models/qwen3_30b_a3b.json"), "--family", "qwen3_moe", "--ep", "4"],
                  4)):
    r = run("eval", *args, "--gpu", "h200", "--prefill", "0:4096", "--decode", "64x2048", "--json",
            "--routing-skew", "1.0")
    jm = json.loads(r.stdout or "{}")
    if not jm:
        continue
    t, f = aggregate(0, jm["manifest"]["nodes"], jm["slots"])
    check(abs(t - jm["total"]["time_ms"]) <= 1e-9 * t, f"{args}: re-aggregated time {t} != {jm['total']['time_ms']}")
    check(2 < jm["total"]["time_ms"] < 1000, f"{args}: iteration time {jm['total']['time_ms']} implausible")
    ranks = [n["ranks"] for n in jm["manifest"]["nodes"] if "ranks" in n]
    check(len(ranks) >= 3 and set(ranks) == {dp}, f"{args}: DP fanout nodes {ranks}, expected dp {dp}")
# The families added for issue 15: Qwen3 dense (Llama's layer plus q/k norm) and Mixtral
# (8 experts top-2, DP attention + EP), by --arch and by --model-config with the family
# inferred from the file's `architectures`.
for args, q_norm, dp in ((["--arch", "qwen3_8b", "--tp", "2"], True, None),
                         (["--arch", "qwen3_32b", "--tp", "8"], True, None),
                         (["--model-config", str(root / "data/models/qwen3_32b.json"), "--tp", "4"], True, None),
                         (["--model-config", str(root / "data/models/qwen3_8b.json"), "--family", "llama"], False,
                          None),
                         (["--arch", "mixtral_8x7b", "--ep", "8"], False, 8),
                         (["--arch", "mixtral_8x22b", "--tp", "2", "--ep", "8"], False, 4),
                         (["--model-config", str(root / "data/models/mixtral_8x7b.json"), "--tp", "2", "--ep", "4"],
                          False, 2),
                         (["--model-config", str(root / "data/models/qwen3_30b_a3b.json"), "--ep", "4"], True, 4),
                         (["--arch", "gpt_oss_120b", "--ep", "8", "--dp", "8"], False, 8),
                         (["--arch", "gpt_oss_20b", "--tp", "2", "--ep", "8"], False, 4),
                         (["--model-config", str(root / "data/models/gpt_oss_20b.json"), "--ep", "4"], False, 4)):
    r = run("eval", *args, "--gpu", "h200", "--prefill", "0:4096", "--decode", "64x2048", "--json")
    jm = json.loads(r.stdout or "{}")
    if not jm:
        continue
    t, f = aggregate(0, jm["manifest"]["nodes"], jm["slots"])
    check(abs(t - jm["total"]["time_ms"]) <= 1e-9 * t, f"{args}: re-aggregated time {t} != {jm['total']['time_ms']}")
    check(2 < jm["total"]["time_ms"] < 1000, f"{args}: iteration time {jm['total']['time_ms']} implausible")
    names = [s["name"] for s in jm["slots"]]
    check(any(n.endswith("attn.q_norm") for n in names) == q_norm, f"{args}: q_norm slot present must be {q_norm}")
    ranks = {n["ranks"] for n in jm["manifest"]["nodes"] if "ranks" in n}
    check(ranks == ({dp} if dp else set()), f"{args}: DP fanout ranks {ranks}, expected {dp}")
with tempfile.TemporaryDirectory() as d:
    cfg = json.loads((root / "data/models/mixtral_8x7b.json").read_text())
    del cfg["architectures"]  # model_type alone picks the family
    (pathlib.Path(d) / "m.json").write_text(json.dumps(cfg))
    r = run("describe", "--model-config", str(pathlib.Path(d) / "m.json"), "--ep", "8")
    check("model (Mixtral)" in r.stdout, "describe: model_type mixtral must read as the mixtral family")
    oss = json.loads((root / "data/models/gpt_oss_20b.json").read_text())
    del oss["architectures"]
    (pathlib.Path(d) / "o.json").write_text(json.dumps(oss))
    r = run("describe", "--model-config", str(pathlib.Path(d) / "o.json"), "--ep", "8")
    check("model (GptOss)" in r.stdout and "window=128" in r.stdout and "weight_dtype=mxfp4" in r.stdout,
          "describe: model_type gpt_oss must read as the gpt_oss family, its sliding prefill and mxfp4 experts shown")
    llama = json.loads((root / "data/models/llama3_8b.json").read_text())
    for arch in ("MistralForCausalLM", "Qwen2ForCausalLM"):  # the same dense layer as Llama
        (pathlib.Path(d) / "l.json").write_text(json.dumps(dict(llama, architectures=[arch])))
        r = run("describe", "--model-config", str(pathlib.Path(d) / "l.json"))
        check("model (Llama3)" in r.stdout, f"describe: {arch} must read as the llama family")
    # MiniMax-M2 is its own family (MiniMax-M2.5's shape, 2 layers): the MoE frame with the
    # per-layer q/k norm, whose all-reduce shows at tp > 1.
    mm = {"architectures": ["MiniMaxM2ForCausalLM"], "model_type": "minimax_m2", "hidden_size": 3072,
          "num_attention_heads": 48, "num_key_value_heads": 8, "head_dim": 128, "intermediate_size": 1536,
          "num_local_experts": 256, "num_experts_per_tok": 8, "vocab_size": 200064, "num_hidden_layers": 2,
          "max_position_embeddings": 196608, "rotary_dim": 64, "shared_intermediate_size": 0,
          "quantization_config": {"quant_method": "fp8", "weight_block_size": [128, 128]}}
    (pathlib.Path(d) / "mm.json").write_text(json.dumps(mm))
    r = run("describe", "--model-config", str(pathlib.Path(d) / "mm.json"), "--tp", "4", "--ep", "8")
    check("model (MiniMaxM2)" in r.stdout and "experts=256" in r.stdout.replace(" ", "") and
          "qk_norm_allreduce" in r.stdout,
          f"describe: MiniMaxM2ForCausalLM must read as the minimax_m2 family with its 256 experts: {r.stdout[:600]}")
    cfg["architectures"] = ["GPT2LMHeadModel"]
    (pathlib.Path(d) / "g.json").write_text(json.dumps(cfg))
    r = run("eval", "--model-config", str(pathlib.Path(d) / "g.json"), "--gpu", "h200", "--decode", "8x512", expect=2)
    check('architectures ["GPT2LMHeadModel"]' in r.stderr and "Qwen3ForCausalLM (qwen3)" in r.stderr,
          f"an unknown architecture must be named with the supported ones: {r.stderr}")
    r = run("eval", "--model-config", str(pathlib.Path(d) / "g.json"), "--family", "mixtral", "--gpu", "h200",
            "--decode", "8x512")
    check(r.returncode == 0, "--family overrides the architectures entry")
# --bounds sees imbalance between DP ranks: one prefill chunk lands on one of 8 groups.
r = run("eval", "--arch", "qwen3_30b_a3b", "--ep", "8", "--gpu", "h200", "--prefill", "0:4096", "--decode", "64x2048",
        "--json", "--bounds")
bm = json.loads(r.stdout or "{}").get("bounds", {})
check(bm.get("load_imbalance_share", 0) > 0.1 and bm["balanced_total_ms"] < bm["total_ms"],
      f"qwen3_30b_a3b dp 8 with one prefill chunk must show load imbalance: {bm}")
r = run("eval", "--arch", "qwen3_30b_a3b", "--ep", "8", "--gpu", "h200", "--decode", "64x2048", "--json", "--bounds")
bm = json.loads(r.stdout or "{}").get("bounds", {})
check(bm and abs(bm["load_imbalance_share"]) < 1e-9, f"64 equal decodes over 8 groups are balanced: {bm}")
# --decode-rows: a speculative step's verify rows. A dense arch takes 16 decodes of 4 rows as
# the 64 decodes of the same lengths, bit for bit; a DP arch keeps each request's rows in its
# group (the deal differs from 64 dealt one by one) and the rows cost more than one each.
def eval_total(*args):
    return json.loads(run("eval", *args, "--gpu", "h200", "--json").stdout or "{}").get("total", {})


rows4 = eval_total("--arch", "llama3_70b", "--tp", "8", "--decode", "16x2048", "--decode-rows", "4")
check(rows4 and rows4 == eval_total("--arch", "llama3_70b", "--tp", "8", "--decode", "64x2048"),
      f"llama3_70b: 16 decodes of 4 rows must equal 64 decodes: {rows4}")
dp_rows = eval_total("--arch", "qwen3_30b_a3b", "--ep", "8", "--decode", "12x2048", "--decode-rows", "3")
dp_one = eval_total("--arch", "qwen3_30b_a3b", "--ep", "8", "--decode", "12x2048")
check(dp_rows and dp_one and dp_rows["time_ms"] > dp_one["time_ms"],
      f"qwen3_30b_a3b dp 8: 3 rows a decode must cost more than one: {dp_rows} vs {dp_one}")
r = run("eval", "--arch", "llama3_8b", "--gpu", "h200", "--decode", "4x100", "--decode-rows", "2")
check("4 decode(s) of 2 rows; 8 new tokens" in r.stdout, f"eval --decode-rows must say the rows: {r.stdout[-300:]}")
r = run("describe", "--arch", "deepseek_v3", "--ep", "8")
check("max over 8 ranks (run-time fanout" in r.stdout, "describe must show the DP fanout of deepseek_v3 at ep 8")
for args, needle in ((["--arch", "qwen3_235b_a22b", "--tp", "4", "--ep", "8", "--dp", "4"], "--dp 4"),
                     (["--arch", "qwen3_235b_a22b", "--ep", "12"], "ep 12 does not divide num_experts 128"),
                     (["--arch", "qwen3_235b_a22b", "--tp", "3", "--ep", "6"], "tp 3"),
                     (["--arch", "llama3_8b", "--ep", "2"], "--ep")):
    r = run("eval", *args, "--gpu", "h200", "--decode", "8x512", expect=2)
    check(needle in r.stderr + r.stdout, f"{' '.join(args)}: message does not name {needle!r}: {r.stderr}")

# describe shows the reference formula; archs lists the tp degrees.
r = run("describe", "--arch", "llama3_8b", "--tp", "4")
check("n=1536 = (num_qo_heads/tp+2*num_kv_heads/tp)*head_dim" in r.stdout, "describe lacks the qkv formula")
r = run("archs", "--json")
archs = {a["name"]: a for a in json.loads(r.stdout or "[]")}
check(archs.get("llama3_70b", {}).get("tp") == [1, 2, 4, 8], "llama3_70b must accept tp 1, 2, 4, 8")
check(archs.get("llama3_70b", {}).get("hp") == [1, 2, 4, 8] and archs["llama3_70b"].get("hp_at_tp") == 8,
      f"llama3_70b at tp 8 must accept hp 1, 2, 4, 8 (64 heads over hp × tp): {archs.get('llama3_70b')}")
check(archs.get("deepseek_v3", {}).get("hp") == [1, 2, 4, 8, 16, 32, 64] and archs["deepseek_v3"].get("hp_at_ep") == 64,
      f"deepseek_v3 at ep 64 must accept hp 1 to 64 (128 heads, ep/hp groups): {archs.get('deepseek_v3')}")
check(archs.get("qwen3_235b_a22b", {}).get("hp") == [1], "the GQA MoE archs take no hp yet")
check(archs.get("qwen3_235b_a22b", {}).get("tp") == [1, 2, 4, 8, 16, 32, 64],
      "qwen3_235b_a22b: tp above its 4 KV heads copies them (as the frameworks do), up to its 64 query heads")
check(8 in archs.get("deepseek_v3", {}).get("ep", []), "deepseek_v3 must accept ep 8")
check(archs.get("qwen3_8b", {}).get("tp") == [1, 2, 4, 8] and archs["qwen3_8b"].get("ep") == [1],
      "qwen3_8b: dense, tp bounded by its 8 KV heads")
check(archs.get("mixtral_8x7b", {}).get("ep") == [1, 2, 4, 8], "mixtral_8x7b: ep must divide its 8 experts")
check(archs.get("gpt_oss_20b", {}).get("ep") == [1, 2, 4, 8, 16, 32], "gpt_oss_20b: ep must divide its 32 experts")
check(archs.get("gpt_oss_120b", {}).get("tp") == [1, 2, 4, 8, 16, 32, 64],
      "gpt_oss_120b: tp above its 8 KV heads copies them, up to its 64 query heads")
check(archs.get("gpt_oss_120b", {}).get("tp_experts") == [2, 4, 8, 16, 32, 64] and
      archs.get("qwen3_235b_a22b", {}).get("tp_experts") == [2, 4, 8, 16, 32, 64] and
      8 in archs.get("deepseek_v3", {}).get("tp_experts", []) and "tp_experts" not in archs.get("llama3_70b", {}),
      f"archs: the MoE archs' TP-expert degrees (ep 1): {archs.get('gpt_oss_120b')}")
r = run("manifest", "--arch", "llama3_8b")
check(len(json.loads(r.stdout or "{}").get("slots", [])) == 18, "llama3_8b manifest must have 18 slots")

# Families register themselves; shipped archs are data/models/*.json: a config.json of a
# known family dropped into a data directory is an arch (its family from its architectures,
# its summary from costdsl_summary when it has one), listed in family order, names in
# numeric order. Every family --family takes is one `costdsl archs` can list.
with tempfile.TemporaryDirectory() as tmp:
    (pathlib.Path(tmp) / "models").mkdir()
    mistral = json.loads((root / "data/models/llama3_8b.json").read_text())
    del mistral["costdsl_summary"]
    mistral["architectures"] = ["MistralForCausalLM"]
    (pathlib.Path(tmp) / "models" / "my_mistral.json").write_text(json.dumps(mistral))
    for name in ("qwen3_32b", "qwen3_8b"):
        (pathlib.Path(tmp) / "models" / f"{name}.json").write_text((root / f"data/models/{name}.json").read_text())
    env = dict(os.environ, COSTDSL_DATA_DIR=tmp)
    listed = json.loads(run("archs", "--json", env=env).stdout or "[]")
    check([(a["name"], a["family"], a["summary"]) for a in listed] ==
          [("my_mistral", "llama", "MistralForCausalLM"), ("qwen3_8b", "qwen3", "Qwen3-8B, dense, q/k norm, TP"),
           ("qwen3_32b", "qwen3", "Qwen3-32B, dense, q/k norm, TP")], f"archs from a data directory: {listed}")
    mine = json.loads(run("eval", "--arch", "my_mistral", "--gpu", "h200", "--timing", "roofline", "--decode", "8x512",
                          "--json", env=env).stdout or "{}")
    ref = json.loads(run("eval", "--arch", "llama3_8b", "--gpu", "h200", "--timing", "roofline", "--decode", "8x512",
                         "--json").stdout or "{}")
    check(mine.get("total") == ref.get("total") and mine.get("total"), "a dropped-in Mistral config is Llama's model")
    r = run("eval", "--arch", "llama3_8b", "--gpu", "h200", expect=2, env=env)
    check("unknown arch 'llama3_8b' (known: my_mistral, qwen3_8b, qwen3_32b)" in r.stderr, f"known archs: {r.stderr}")
families = ["llama", "qwen3", "qwen3_moe", "mixtral", "gpt_oss", "minimax_m2", "llama4", "llama4_maverick", "qwen3_5",
            "deepseek_v3", "glm5"]
r = run("eval", "--help")
check(f"{{{','.join(families)}}}" in r.stdout, "--family lists the registered families in meson's order")
check(sorted({a["family"] for a in archs.values()}) == sorted(families), "every family ships an arch")

# Llama-4 Scout and Maverick name the same architectures: the config's MoE step
# (interleave_moe_layer_step) picks the family; --family that disagrees names the field.
MAV = ["eval", "--model-config", str(root / "data/models/llama4_maverick.json"), "--gpu", "h200", "--ep", "8",
       "--decode", "8x1024", "--json"]
mav = {s["name"] for s in json.loads(run(*MAV).stdout or "{}").get("slots", [])}
scout = {s["name"] for s in json.loads(run("eval", "--model-config", str(root / "data/models/llama4_scout.json"),
                                           "--gpu", "h200", "--ep", "8", "--decode", "8x1024", "--json").stdout
                                       or "{}").get("slots", [])}
check("model.layer.chunked_dense.dp.mlp.up_gate_proj" in mav and "model.layer.chunked.dp.router.router" in mav,
      f"the Maverick config.json is the llama4_maverick family (dense and MoE layers): {sorted(mav)[:8]}")
check(scout and not any("_dense" in s for s in scout), "the Scout config.json stays the llama4 family (every layer MoE)")
r = run(*MAV, "--family", "llama4", expect=2)
check("interleave_moe_layer_step 2 is not 1 (llama4)" in r.stderr, f"--family llama4 on Maverick's config: {r.stderr}")

# --hp (issue 20): --hp 1 is the tp tree byte for byte; --hp 2 splits the KV, the HP all-to-all
# and merge join the attention slots, the FFN runs TP over hp × tp GPUs; decode attention
# per GPU halves at 131,072 tokens of KV.
LONG = ["--arch", "llama3_70b", "--gpu", "h200", "--decode", "16x131072", "--json"]
tp8 = run("eval", *LONG, "--tp", "8")
check(tp8.stdout == run("eval", *LONG, "--tp", "8", "--hp", "1").stdout, "--hp 1 must print exactly the tp 8 eval")
check(run("manifest", "--arch", "llama3_70b", "--tp", "8").stdout ==
      run("manifest", "--arch", "llama3_70b", "--tp", "8", "--hp", "1").stdout, "--hp 1 must keep the tp manifest")
hp2 = run("eval", *LONG, "--tp", "8", "--hp", "2")
j1, j2 = json.loads(tp8.stdout or "{}"), json.loads(hp2.stdout or "{}")
if j1 and j2:
    s1 = {s["name"]: s for s in j1["slots"]}
    s2 = {s["name"]: s for s in j2["slots"]}
    check(set(s2) - set(s1) == {"model.layer.attn.hp_all_to_all", "model.layer.attn.hp_combine"},
          f"hp 2 adds exactly the all-to-all and merge slots: {sorted(set(s2) ^ set(s1))}")
    ratio = s2["model.layer.attn.decode"]["time_ms"] / s1["model.layer.attn.decode"]["time_ms"]
    check(0.45 < ratio < 0.55, f"decode attention per GPU must about halve from hp 1 to hp 2, got ×{ratio:.3f}")
    check(j2["total"]["time_ms"] < j1["total"]["time_ms"], "hp 2 must shorten the long-context iteration")
    t, f = aggregate(0, j2["manifest"]["nodes"], j2["slots"])
    check(abs(t - j2["total"]["time_ms"]) <= 1e-9 * t, "hp 2: re-aggregated time differs from the total")
r = run("describe", "--arch", "llama3_70b", "--tp", "8", "--hp", "2")
check("AttnBlockHptp) [hp=2, tp=8" in r.stdout and "num_qo_heads/(hp*tp)*head_dim" in r.stdout,
      "describe --hp 2 must show the hptp worklet and the o_proj formula over hp × tp")
r = run("eval", "--arch", "llama3_70b", "--gpu", "h200", "--tp", "8", "--hp", "0", expect=2)
check("--hp" in r.stderr + r.stdout, f"--hp 0 must name --hp: {r.stderr}")

# --hp on DeepSeek-V3 (MLA: the KV split alone, dp = ep / hp groups): --hp 1 is today's eval;
# one request of 1M tokens on 8 GPUs reads 1/hp of its KV per GPU.
DS = ["--arch", "deepseek_v3", "--gpu", "h200", "--ep", "8", "--decode", "1x1048576", "--json"]
ds1 = run("eval", *DS)
check(ds1.stdout == run("eval", *DS, "--hp", "1").stdout, "deepseek_v3 --hp 1 must print exactly the eval without it")
ds4 = run("eval", *DS, "--hp", "4")
j1, j4 = json.loads(ds1.stdout or "{}"), json.loads(ds4.stdout or "{}")
if j1 and j4:
    s1 = {s["name"]: s for s in j1["slots"]}
    s4 = {s["name"]: s for s in j4["slots"]}
    added = {"model.%s.dp.attn.%s" % (layer, slot) for layer in ("dense_layer", "moe_layer")
             for slot in ("hp_all_to_all", "hp_combine")}
    check(set(s4) - set(s1) == added, f"deepseek_v3 hp 4 adds the exchange and merge: {sorted(set(s4) ^ set(s1))}")
    ratio = s4["model.moe_layer.dp.attn.decode"]["time_ms"] / s1["model.moe_layer.dp.attn.decode"]["time_ms"]
    check(0.22 < ratio < 0.28, f"deepseek_v3 MLA decode per GPU must shrink about 4x at hp 4, got x{ratio:.3f}")
    check(j4["total"]["time_ms"] < j1["total"]["time_ms"], "deepseek_v3 hp 4 must shorten the 1M-token iteration")
r = run("describe", "--arch", "deepseek_v3", "--ep", "8", "--hp", "2")
check("MlaBlockHp) [hp=2, heads/gpu=64" in r.stdout and "model (DeepseekV3) [hp=2, tp=1, ep=8, dp=4" in r.stdout,
      f"describe --hp 2 must show the MLA hp worklet and dp = ep / hp: {r.stdout[:400]}")

# Measured leaves: the shipped H100 tables answer the Llama-3-70B TP8 iteration's GEMMs,
# attention and TP all-reduces; the other leaves say they are analytic.
r = run("eval", "--arch", "llama3_70b", "--tp", "8", "--gpu", "h100", "--prefill", "0:4096", "--decode", "64x2048",
        "--json")
jh = json.loads(r.stdout or "{}")
measured = {s["name"] for s in jh.get("slots", []) if "ANALYTIC" not in s["coverage"] and s["time_ms"] > 0}
for name in ("model.layer.attn.prefill", "model.layer.attn.decode", "model.layer.attn.tp_allreduce",
             "model.layer.mlp.up_gate_proj", "model.layer.mlp.down_proj", "model.layer.attn.o_proj"):
    check(name in measured, f"eval --gpu h100: {name} should be a measured leaf; measured: {sorted(measured)}")
check(any("ANALYTIC" in s["coverage"] for s in jh.get("slots", [])), "eval --gpu h100: norms stay analytic")
r = run("eval", "--arch", "llama3_70b", "--tp", "8", "--gpu", "h100", "--prefill", "0:4096", "--decode", "64x2048")
check("rms_norm [ANALYTIC]" in r.stdout and "attn_prefill (sglang: SGLang 0.5.14)" in r.stdout
      and ("all_reduce (nccl: NCCL 2.29.2)" in r.stdout or "all_reduce (custom: SGLang 0.5.14)" in r.stdout),
      "eval text on h100: measured leaves name their backend and who measured it, analytic ones are flagged")
slot = {s["name"]: s for s in jh.get("slots", [])}
check(slot.get("model.layer.attn.prefill", {}).get("measured_by") == "SGLang 0.5.14"
      and slot.get("model.layer.attn.input_norm", {}).get("measured_by", 0) is None,
      f"eval --json: measured_by names the framework and version of a measured leaf's table, null otherwise: "
      f"{slot.get('model.layer.attn.prefill')}")
# Every shipped GPU but H200 runs its attention and GEMMs on measured leaves.
for gpu in ("b200", "a100", "gb200", "b300", "gb300", "l40s", "rtx_pro_6000"):
    r = run("eval", "--arch", "llama3_8b", "--tp", "2", "--gpu", gpu, "--prefill", "0:2048", "--decode", "16x1024",
            "--json")
    js = json.loads(r.stdout or "{}")
    got = {s["name"] for s in js.get("slots", []) if "ANALYTIC" not in s["coverage"] and s["time_ms"] > 0}
    check("model.layer.attn.decode" in got and "model.layer.mlp.down_proj" in got,
          f"eval --gpu {gpu}: attention and GEMMs should be measured; measured: {sorted(got)}")

# --quant moe=mxfp4_mxfp8: gpt-oss's experts under MXFP8 activations (W4A8), the kernel
# TensorRT-LLM and vLLM run on Blackwell; on every Blackwell GPU with tables SGLang's
# measurement of it answers, and a decode batch's experts cost less than W4A16's.
for gpu in ("b200", "gb200", "b300", "gb300"):
    def oss_experts(*quant):
        r = run("eval", "--arch", "gpt_oss_120b", "--gpu", gpu, "--decode", "64x1024", "--json", *quant)
        js = json.loads(r.stdout or "{}")
        return [x for x in js.get("slots", []) if x["name"] == "model.layer.full.moe.experts"]
    w8, w16 = oss_experts("--quant", "moe=mxfp4_mxfp8"), oss_experts()
    check(w8 and w16 and "ANALYTIC" not in w8[0]["coverage"] and w8[0]["time_ms"] < w16[0]["time_ms"],
          f"eval --gpu {gpu} --quant moe=mxfp4_mxfp8: W4A8 experts measured and faster than W4A16: {w8} vs {w16}")

# import aiconfigurator → profile tables → kernels read them; validate compares.
GEMM_HDR = "framework,version,device,op_name,kernel_source,gemm_dtype,m,n,k,latency\n"
with tempfile.TemporaryDirectory() as d:
    d = pathlib.Path(d)
    src = d / "src"
    src.mkdir()
    (src / "my_gemms.txt").write_text(GEMM_HDR + "".join(
        f"SGLang,0.5.14,H100,gemm,torch,bfloat16,{m},{n},4096,{0.004 + m * n * 4096 * 2 / 7e14 * 1e3:.6f}\n"
        for m in (1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024) for n in (1024, 2048)) +
        "SGLang,0.5.14,H100,gemm,marlin,int4_wo,1,1024,4096,0.02\n")
    (src / "nccl.csv").write_text(
        "framework,version,device,op_name,kernel_source,nccl_dtype,num_gpus,message_size,latency\n"
        "TRTLLM,2.29.2,H100,all_reduce,NCCL,half,8,1048576,0.038\n"
        "TRTLLM,2.29.2,H100,all_reduce,NCCL,half,8,16777216,0.1998\n"
        "TRTLLM,2.29.2,H100,reduce_scatter,NCCL,half,8,16777216,0.12\n")
    (src / "README.csv").write_text("name,value\nnot,a table\n")
    out = d / "profiles"
    r = run("import", "aiconfigurator", str(src), "--gpu", "H100", "--out", str(out), "--hold-out", "30",
            "--held-out-dir", str(d / "held"))
    check("gemm_dtype int4_wo" in r.stdout and "op_name reduce_scatter" in r.stdout,
          "import must report its skipped rows by reason: " + r.stdout[-1500:])
    check("not a measurement table" in r.stdout, "import must report files it did not read")
    check((out / "h100_sxm" / "gemm.csv").exists() and (out / "h100_sxm" / "all_reduce.csv").exists(),
          "import must write h100_sxm/gemm.csv and all_reduce.csv")
    check(any((d / "held").glob("*.txt")), "import --held-out-dir must write the held-back gemm rows")
    # --complete: every config gzip-compressed under all/<gpu>/, with its index; the tables
    # read back through the loader (the gzip's text is the plain table's).
    r = run("import", "aiconfigurator", str(src), "--gpu", "H100", "--out", str(out), "--complete")
    gz, idx = out / "all" / "h100_sxm" / "gemm.csv.gz", out / "all" / "h100_sxm" / "gemm.configs"
    check(gz.exists() and idx.exists() and gzip.decompress(gz.read_bytes()).decode().startswith("# gemm on h100_sxm"),
          f"import --complete writes all/h100_sxm/gemm.csv.gz and its index: {r.stdout[-600:]}")
    check(any(line.startswith("sglang,") for line in idx.read_text().splitlines()), "the index lists backend,config lines")
    r = run("import", "aiconfigurator", str(src), "--gpu", "H100", "--out", str(out), "--complete", "--for-archs",
            expect=2)
    check("--complete writes every measured config" in r.stderr, f"--complete with --for-archs: {r.stderr}")
    k = json.loads(run("kernel", "gemm", "--gpu", "h100", "--profile-dir", str(out), "--m", "48", "--n", "1536",
                       "--k", "4096", "--json").stdout or "{}")
    check(k.get("source") == "profile" and k.get("backend") == "sglang" and k.get("coverage") == [],
          f"a GEMM between imported configs is a measured leaf: {k}")
    v = json.loads(run("validate", str(d / "held"), "--gpu", "h100", "--timing", "profile", "--profile-dir", str(out),
                       "--json").stdout or "{}")
    fam = {f["family"]: f for f in v.get("families", [])}
    check(fam.get("gemm.bf16", {}).get("rows", 0) > 0 and fam["gemm.bf16"]["median_abs_rel_err"] < 0.1,
          f"validate on held-out rows: {v}")
    v = json.loads(run("validate", str(src), "--gpu", "h100", "--timing", "roofline", "--json").stdout or "{}")
    fam = {f["family"]: f for f in v.get("families", [])}
    for key in ("gemm.bf16", "all_reduce.nccl", "all_reduce.best.8gpu"):
        f = fam.get(key, {})
        check(f.get("rows", 0) > 0 and all(x in f for x in ("median_abs_rel_err", "p90_abs_rel_err", "bias", "worst")),
              f"validate --json lacks family {key} or its fields: {fam.keys()}")
    check(v.get("skipped", {}).get("op_name reduce_scatter: all_reduce and all_gather are imported from NCCL tables") == 1,
          f"validate must count skipped rows by reason: {v.get('skipped')}")
    r = run("validate", str(src), "--gpu", "h100", "--timing", "roofline")
    check("median |err|" in r.stdout and "worst rows" in r.stdout, "validate text: table and worst rows")
    # --for-models: the configs a config.json's model binds (here with the measured neighbours
    # its GEMMs blend from); a directory's unbuildable configs are passed over, a named one is an error.
    models = d / "models"
    models.mkdir()
    (models / "llama3_8b_config.json").write_text((root / "data" / "models" / "llama3_8b.json").read_text())
    (models / "foo_config.json").write_text('{"architectures": ["FooForCausalLM"], "hidden_size": 64}')
    r = run("import", "aiconfigurator", str(src), "--gpu", "H100", "--out", str(d / "for_models"), "--for-models",
            str(models))
    check("--for-models: passing over" in r.stdout and "foo_config.json" in r.stdout,
          f"--for-models DIR passes over a config it cannot build: {r.stdout[-1500:]}")
    check((d / "for_models" / "h100_sxm" / "gemm.csv").exists(), f"--for-models writes the kept configs: {r.stdout}")
    r = run("import", "aiconfigurator", str(src), "--gpu", "H100", "--out", str(d / "bad_model"), "--for-models",
            str(models / "foo_config.json"), expect=2)
    check("foo_config.json" in r.stderr, f"--for-models FILE that cannot be built is an error: {r.stderr}")
    # A MoE model's experts at TP (EP 1: each expert's intermediate split tp ways, vLLM's and
    # SGLang's default without expert parallelism) are wanted configs, as are its EP layouts,
    # under the routing its family's leaves look up (Qwen3 MoE: power law 1.2).
    moe_src = d / "moe_src"
    moe_src.mkdir()
    (moe_src / "moe_vllm.csv").write_text(
        "framework,version,device,op_name,kernel_source,moe_dtype,num_tokens,hidden_size,inter_size,topk,"
        "num_experts,moe_tp_size,moe_ep_size,distribution,latency\n" + "".join(
            f"VLLM,0.24.0,H100,moe,k,bfloat16,{t},2048,768,8,128,{tp},{ep},{dist},{0.01 + t * 1e-5:.6f}\n"
            for t in (1, 16, 256) for tp, ep in ((4, 1), (1, 4), (3, 1)) for dist in ("balanced", "power_law_1.2")))
    (models / "qwen3_30b_config.json").write_text((root / "data" / "models" / "qwen3_30b_a3b.json").read_text())
    r = run("import", "aiconfigurator", str(moe_src), "--gpu", "H100", "--out", str(d / "moe_out"), "--for-models",
            str(models / "qwen3_30b_config.json"))
    moe_configs = {tuple(line.split(",")[:7]) for line in (d / "moe_out" / "h100_sxm" / "fused_moe.csv").read_text()
                   .splitlines() if line.startswith("bf16,")}
    check(moe_configs == {("bf16", "2048", "192", "128", "8", "bf16", "power_law_1.2"),
                          ("bf16", "2048", "768", "32", "8", "bf16", "power_law_1.2")},
          f"--for-models keeps the TP-expert (768 / 4) and EP (128 / 4 experts) layouts at the family's load, not "
          f"TP 3 nor balanced: {moe_configs}")
    # The model's experts read that table (measured), and balanced ones where costdsl skews
    # the routing itself (none imported here: the roofline).
    def experts_slot(*extra):
        js = json.loads(run("eval", "--model-config", str(models / "qwen3_30b_config.json"), "--gpu", "h100", "--tp",
                            "4", "--ep", "1", "--decode", "16x1024", "--profile-dir", str(d / "moe_out"), "--json",
                            *extra).stdout or "{}")
        return next((s for s in js.get("slots", []) if s["name"].endswith("moe.experts")), {})
    s = experts_slot()
    check(s.get("backend") == "vllm" and "ANALYTIC" not in s.get("coverage", []), f"power-law experts measured: {s}")
    s = experts_slot("--routing-skew", "1")
    check("ANALYTIC" in s.get("coverage", []), f"--routing-skew: balanced tables, none here: the roofline: {s}")
    # `kernel fused_moe --expert-load NAME` picks the measurement; a name it does not know is refused.
    def moe_kernel(load, expect=0):
        return run("kernel", "fused_moe", "--gpu", "h100", "--profile-dir", str(d / "moe_out"), "--hidden", "2048",
                   "--moe-intermediate", "192", "--num-experts", "128", "--top-k", "8", "--rows", "128",
                   "--active-experts", "0", "--expert-load", load, "--json", expect=expect)
    k = json.loads(moe_kernel("power_law_1.2").stdout or "{}")
    check(k.get("source") == "profile" and k.get("backend") == "vllm", f"kernel --expert-load power_law_1.2: {k}")
    k = json.loads(moe_kernel("balanced").stdout or "{}")
    check(k.get("source") != "profile", f"kernel --expert-load balanced: no such table here: {k}")
    r = moe_kernel("zipf", expect=2)
    check("--expert-load zipf: not one of balanced, power_law_1.01, power_law_1.2" in r.stderr, r.stderr)

# import aiconfigurator reads TensorRT-LLM's and vLLM's .csv.gz beside SGLang's .csv; --framework picks.
with tempfile.TemporaryDirectory() as d:
    d = pathlib.Path(d)
    src = d / "src"
    src.mkdir()

    def gemm_rows(fw, version, scale=1.0):
        return GEMM_HDR + "".join(
            f"{fw},{version},H100,gemm,k,bfloat16,{m},{n},4096,{scale * (0.004 + m * n * 1e-9):.6f}\n"
            for m in (1, 16, 256) for n in (1024, 2048))
    (src / "gemm_sglang_0.5.14.csv").write_text(gemm_rows("SGLang", "0.5.14"))
    (src / "gemm_trtllm_1.3.0rc20.csv.gz").write_bytes(gzip.compress(gemm_rows("TRTLLM", "1.3.0rc20").encode()))
    # vLLM's kernels twice as slow: which table answered shows in the times.
    (src / "gemm_vllm_0.24.0.csv.gz").write_bytes(gzip.compress(gemm_rows("VLLM", "0.24.0", 2.0).encode()))

    def backends(out):
        lines = (out / "h100_sxm" / "gemm.csv").read_text().splitlines()
        header = next(line for line in lines if not line.startswith("#")).split(",")
        return {line.split(",")[header.index("backend")] for line in lines[lines.index(",".join(header)) + 1:]}
    def import_frameworks(out, frameworks=None, expect=0):
        return run("import", "aiconfigurator", str(src), "--gpu", "h100", "--out", str(d / out),
                   *(["--framework", frameworks] if frameworks else []), expect=expect)
    r = import_frameworks("all")
    check(backends(d / "all") == {"sglang", "trtllm", "vllm"}, f"import of all frameworks: {r.stdout[-1500:]}")
    check("mapped rows by framework: sglang 6, trtllm 6, vllm 6" in r.stdout, f"per-framework counts: {r.stdout}")
    r = import_frameworks("trt", "trtllm")
    check(backends(d / "trt") == {"trtllm"}, f"--framework trtllm imports trtllm rows only: {r.stdout[-1500:]}")
    check("not imported (--framework)" in r.stdout, f"--framework: the other files are listed as such: {r.stdout}")
    r = import_frameworks("two", "sglang,VLLM")
    check(backends(d / "two") == {"sglang", "vllm"}, f"--framework sglang,VLLM: {r.stdout[-1500:]}")
    # FRAMEWORK:KIND: that framework's tables of one kernel kind only (the shipped tables take
    # vLLM's fused MoE beside SGLang's kernels); its other rows are counted as not asked for.
    r = import_frameworks("kinds", "sglang,VLLM:fused_moe")
    check(backends(d / "kinds") == {"sglang"}, f"--framework sglang,vllm:fused_moe keeps vLLM's GEMMs out: {r.stdout}")
    check("kind gemm: not asked for (--framework vllm:fused_moe)" in r.stdout, f"the skipped rows' reason: {r.stdout}")
    r = import_frameworks("kinds2", "sglang,vllm:gemm")
    check(backends(d / "kinds2") == {"sglang", "vllm"}, f"--framework sglang,vllm:gemm: {r.stdout[-1500:]}")
    r = import_frameworks("kinds3", "vllm:moe", expect=2)
    check("--framework vllm:moe: no kernel kind 'moe'" in r.stderr and "fused_moe" in r.stderr,
          f"an unknown kind names the kinds: {r.stderr}")
    r = import_frameworks("kinds3", "tensorrt:gemm", expect=2)
    check("the framework must be sglang, trtllm or vllm" in r.stderr, f"an unknown framework: {r.stderr}")
    # The kernel reads an imported TRT-LLM table: trtllm is one of the gemm kind's backends.
    k = json.loads(run("kernel", "gemm", "--gpu", "h100", "--profile-dir", str(d / "trt"), "--m", "16", "--n", "2048",
                       "--k", "4096", "--json").stdout or "{}")
    check(k.get("source") == "profile" and k.get("backend") == "trtllm" and k.get("coverage") == [],
          f"a GEMM on an imported TRT-LLM table is a measured trtllm leaf: {k}")
    # --kernel-framework: the preferred framework's table where it holds the config, the
    # fastest otherwise; a bad name is refused.
    def kernel_backend(*extra):
        out = run("kernel", "gemm", "--gpu", "h100", "--profile-dir", str(d / "all"), "--m", "16", "--n", "2048",
                  "--k", "4096", "--json", *extra).stdout
        return json.loads(out or "{}").get("backend")
    check(kernel_backend("--kernel-framework", "vllm") == "vllm", "--kernel-framework vllm takes vLLM's table")
    check(kernel_backend("--kernel-framework", "trtllm") == "trtllm", "--kernel-framework trtllm")
    check(kernel_backend() == "sglang", "no preference: the fastest (SGLang's and TRT-LLM's tie; the first listed)")
    run("kernel", "gemm", "--gpu", "h100", "--m", "16", "--n", "2048", "--k", "4096", "--kernel-framework", "trt",
        expect=2)
    # validate DIR: another framework's rows are a family of their own, answered by its tables.
    r = run("validate", str(src), "--gpu", "h100", "--profile-dir", str(d / "all"), "--json")
    fams = {f["family"]: f for f in json.loads(r.stdout)["families"]}
    check({"gemm.bf16", "gemm.bf16.trtllm", "gemm.bf16.vllm"} <= set(fams), f"validate families: {sorted(fams)}")
    check(all(f["median_abs_rel_err"] < 1e-6 for k, f in fams.items() if k.startswith("gemm")),
          f"each framework's rows meet its own table: {fams}")
    packed = gzip.compress(gemm_rows("TRTLLM", "1.3.0rc20").encode())
    (src / "gemm_trtllm_1.3.0rc20.csv.gz").write_bytes(packed[:len(packed) // 2])
    r = run("import", "aiconfigurator", str(src), "--gpu", "h100", "--out", str(d / "bad"), expect=2)
    check("gemm_trtllm_1.3.0rc20.csv.gz: truncated gzip stream after" in r.stderr, f"truncated .gz: {r.stderr}")

# Our own H200 tables (data/profiles_costdsl, costdsl-profile) load and time every leaf they
# measured when asked for; without --profile-dir H200 stays the roofline-only GPU.
own = root / "data" / "profiles_costdsl"
for profile_dir in (["--profile-dir", str(own)], []):
    r = run("eval", "--arch", "llama3_8b", "--tp", "1", "--gpu", "h200", "--prefill", "0:1024", "--decode", "8x1024",
            "--json", *profile_dir)
    slots = json.loads(r.stdout or "{}").get("slots", [])
    gemms = [s for s in slots if s["kind"] == "gemm"]
    measured = [s for s in gemms if s.get("backend") == "cublaslt" and not s["coverage"]]
    if profile_dir:
        check(gemms and len(measured) == len(gemms), f"own H200 tables: every GEMM leaf measured by cuBLASLt: {gemms}")
        check(any(s["kind"] == "rms_norm" and s.get("backend") == "costdsl_cuda" for s in slots),
              f"own H200 tables: rms_norm measured: {slots}")
    else:
        check(gemms and all("ANALYTIC" in s["coverage"] for s in gemms), f"H200 by default: roofline only: {gemms}")

# validate --deployments: measured deployments against the same deployment simulated, each
# row pinned; what costdsl cannot express yet is a counted skip with its reason.
with tempfile.TemporaryDirectory() as d:
    d = pathlib.Path(d)
    (d / "model_configs").mkdir()
    (d / "model_configs" / "meta-llama--Llama-3.1-8B-Instruct_config.json").write_text(
        (root / "data/models/llama3_8b.json").read_text())
    header = ("id,backend,backend_version,model_path,system,precision,mode,isl,osl,gemm_quant_mode,moe_quant_mode,"
              "batch_size,tp_size,pp_size,attention_dp_size,moe_tp_size,moe_ep_size,silicon_ttft_ms,silicon_tpot_ms")
    good = "a,trtllm,1.2,meta-llama/Llama-3.1-8B-Instruct,h100_sxm,bf16,agg,1024,128,bf16,,8,1,1,1,1,1,191,7.5"
    table = [header, good,
             "b,trtllm,1.2,meta-llama/Llama-3.1-8B-Instruct,h100_sxm,fp8,agg,1024,128,fp8,,8,1,1,1,1,1,150,6",
             "c,vllm,0.19,meta-llama/Llama-3.1-8B-Instruct,h100_sxm,bf16,disagg,1024,128,bf16,,,,,,,,200,8",
             "d,vllm,0.19,meta-llama/Llama-3.1-8B-Instruct,tpu_v9,bf16,agg,1024,128,bf16,,8,1,1,1,1,1,191,7.5",
             "e,vllm,0.19,acme/Nonexistent-7B,h100_sxm,bf16,agg,1024,128,bf16,,8,1,1,1,1,1,191,7.5",
             "f,vllm,0.19,meta-llama/Llama-3.1-8B-Instruct,h100_sxm,int4,agg,1024,128,int4_wo,,8,1,1,1,1,1,150,6"]
    # A disaggregated row names its workers: 1 prefill worker at tp 1 (batch 2), 2 decode workers at tp 1 (batch 4).
    dis_header = header.replace(",silicon_ttft_ms", ",prefill_batch_size,prefill_num_workers,prefill_tp_size,"
                                "decode_batch_size,decode_num_workers,decode_tp_size,silicon_ttft_ms")
    table = [dis_header] + [row.replace(",191,7.5", ",,,,,,,191,7.5").replace(",150,6", ",,,,,,,150,6")
                            .replace(",200,8", ",,,,,,,200,8") for row in table[1:]]
    table.append("g,trtllm,1.2,meta-llama/Llama-3.1-8B-Instruct,h100_sxm,bf16,disagg,1024,128,bf16,,,,,,,,"
                 "2,1,1,4,2,1,120,6")
    (d / "silicon.csv").write_text("\n".join(table) + "\n")
    v = json.loads(run("validate", "--deployments", str(d / "silicon.csv"), "--json").stdout or "{}")
    check(v.get("rows") == 7 and v.get("simulated") == 3, f"validate --deployments: 7 rows, 3 simulated: {v}")
    skipped = v.get("skipped", {})
    for needle in ("int4_wo: meta-llama/Llama-3.1-8B-Instruct does not ship int4", "prefill_num_workers empty", "system tpu_v9",
                   "model acme/Nonexistent-7B"):
        check(any(k.startswith(needle) and e["count"] == 1 for k, e in skipped.items()),
              f"validate --deployments: one row skipped for {needle!r}: {skipped}")
    # The simulated row is what `plan` pinned to the same deployment says, under the row's
    # framework (trtllm) with the token budget aiconfigurator's benchmark generator sets:
    # batch 8 + ISL 1024 + 1500, rounded up to TensorRT-LLM's 32-token KV block, and the
    # benchmark's protocol (a drained warm-up, 20 rounds, the mean compared).
    bench = ["--warmup", "drained", "--rounds", "20"]
    p = json.loads(run("plan", "--arch", "llama3_8b", "--gpu", "h100", "--gpus", "1", "--isl", "1024", "--osl", "128",
                       "--concurrency", "8", "--mode", "agg", "--max-batch", "8", "--framework", "trtllm",
                       "--token-budgets", "2560", "--hp", "1", *bench, "--json").stdout or "{}")
    pinned = [c for c in p.get("candidates", []) if c["tp"] == 1 and c["replicas"] == 1]
    rows = {w["id"]: w for w in v.get("worst", [])}
    a = rows.get("a", {})
    check(pinned and abs(a.get("ttft_ms", {}).get("modelled", 0) - pinned[0]["ttft_ms"]["mean"]) < 1e-9 and
          abs(a["tpot_ms"]["modelled"] - pinned[0]["tpot_ms"]["mean"]) < 1e-9,
          f"validate --deployments: the row's TTFT and TPOT are plan's pinned means: {a} / {pinned[:1]}")
    # --statistic p50 compares the medians; --warmup first-round --rounds 3 is plan's steady state.
    v_p50 = json.loads(run("validate", "--deployments", str(d / "silicon.csv"), "--json", "--statistic",
                           "p50").stdout or "{}")
    a_p50 = {w["id"]: w for w in v_p50.get("worst", [])}.get("a", {})
    check(pinned and abs(a_p50.get("ttft_ms", {}).get("modelled", 0) - pinned[0]["ttft_ms"]["p50"]) < 1e-9 and
          a_p50["ttft_ms"]["modelled"] != a["ttft_ms"]["modelled"] and "medians compared" in v_p50.get("engine", ""),
          f"validate --statistic p50: plan's pinned p50: {a_p50} / {pinned[:1]}")
    v_st = json.loads(run("validate", "--deployments", str(d / "silicon.csv"), "--json", "--warmup", "first-round",
                          "--rounds", "3").stdout or "{}")
    p_st = json.loads(run("plan", "--arch", "llama3_8b", "--gpu", "h100", "--gpus", "1", "--isl", "1024", "--osl",
                          "128", "--concurrency", "8", "--mode", "agg", "--max-batch", "8", "--framework", "trtllm",
                          "--token-budgets", "2560", "--hp", "1", "--json").stdout or "{}")
    a_st = {w["id"]: w for w in v_st.get("worst", [])}.get("a", {})
    pinned_st = [c for c in p_st.get("candidates", []) if c["tp"] == 1 and c["replicas"] == 1]
    check(pinned_st and abs(a_st.get("ttft_ms", {}).get("modelled", 0) - pinned_st[0]["ttft_ms"]["mean"]) < 1e-9 and
          p_st.get("load", {}).get("warmup") == "first-round" and p_st["load"].get("rounds") == 3,
          f"validate --warmup first-round --rounds 3: plan's default steady state: {a_st} / {pinned_st[:1]}")
    # The fp8 row runs fp8 GEMMs over an fp8 KV cache (the ModelOpt checkpoint's), as plan does when told so.
    b = rows.get("b", {})
    p8 = json.loads(run("plan", "--arch", "llama3_8b", "--gpu", "h100", "--gpus", "1", "--isl", "1024", "--osl", "128",
                        "--concurrency", "8", "--mode", "agg", "--max-batch", "8", "--framework", "trtllm",
                        "--token-budgets", "2560", "--hp", "1", "--quant", "fp8", "--kv-dtype", "fp8", *bench,
                        "--json").stdout or "{}")
    pinned8 = [c for c in p8.get("candidates", []) if c["tp"] == 1 and c["replicas"] == 1]
    check(b.get("quantization") == "gemm=fp8 moe=bf16 kv=fp8" and pinned8 and
          abs(b["ttft_ms"]["modelled"] - pinned8[0]["ttft_ms"]["mean"]) < 1e-9 and
          b["ttft_ms"]["modelled"] < a["ttft_ms"]["modelled"] and b["tpot_ms"]["modelled"] < a["tpot_ms"]["modelled"],
          f"validate --deployments: the fp8 row is plan --quant fp8 --kv-dtype fp8, faster than bf16: {b} / {pinned8[:1]}")
    # --timing roofline: every kernel from the roofline, as on a GPU without tables (the transfer check).
    v_roof = json.loads(run("validate", "--deployments", str(d / "silicon.csv"), "--json", "--timing",
                            "roofline").stdout or "{}")
    a_roof = {w["id"]: w for w in v_roof.get("worst", [])}.get("a", {})
    p_roof = json.loads(run("plan", "--arch", "llama3_8b", "--gpu", "h100", "--gpus", "1", "--isl", "1024", "--osl",
                            "128", "--concurrency", "8", "--mode", "agg", "--max-batch", "8", "--framework", "trtllm",
                            "--token-budgets", "2560", "--hp", "1", "--timing", "roofline", *bench,
                            "--json").stdout or "{}")
    pinned_roof = [c for c in p_roof.get("candidates", []) if c["tp"] == 1 and c["replicas"] == 1]
    check(v_roof.get("simulated") == 3 and pinned_roof and
          abs(a_roof["ttft_ms"]["modelled"] - pinned_roof[0]["ttft_ms"]["mean"]) < 1e-9 and
          a_roof["ttft_ms"]["modelled"] != a["ttft_ms"]["modelled"],
          f"validate --deployments --timing roofline: plan's roofline row, not the tables': {a_roof} / {pinned_roof[:1]}")
    v_ckpt = json.loads(run("validate", "--deployments", str(d / "silicon.csv"), "--json", "--kv-dtype",
                            "checkpoint").stdout or "{}")
    b_ckpt = {w["id"]: w for w in v_ckpt.get("worst", [])}.get("b", {})
    check(b_ckpt.get("quantization") == "gemm=fp8 moe=bf16 kv=bf16",
          f"validate --deployments --kv-dtype checkpoint: the config's bf16 KV: {b_ckpt}")
    # The disaggregated row is `simulate --mode disagg` with the same workers and 8 clients.
    gr = rows.get("g", {})
    sd = json.loads(run("simulate", "--arch", "llama3_8b", "--gpu", "h100", "--mode", "disagg", "--prefill-tp", "1",
                        "--prefill-workers", "1", "--prefill-batch", "2", "--tp", "1", "--decode-workers", "2",
                        "--batch", "4", "--framework", "trtllm", "--token-budget", "2528", "--isl", "1024", "--osl",
                        "128", "--concurrency", "8", "--json").stdout or "{}")
    check(gr.get("mode") == "disagg" and sd and abs(gr["ttft_ms"]["modelled"] - sd["ttft_ms"]["mean"]) < 1e-9 and
          abs(gr["tpot_ms"]["modelled"] - sd["tpot_ms"]["mean"]) < 1e-9,
          f"validate --deployments: the disaggregated row is simulate --mode disagg's: {gr} / {sd}")
    g = [x for x in v.get("groups", []) if x.get("mode") == "agg"][0]
    errs = sorted(w["ttft_ms"]["modelled"] / w["ttft_ms"]["measured"] - 1 for w in (a, b))
    check(g.get("backend") == "trtllm" and g.get("gpu") == "h100_sxm" and g.get("rows") == 2 and
          abs(g["ttft"]["bias"] - sum(errs) / 2) < 1e-12,
          f"validate --deployments: the group's bias is the median of its rows' relative errors: {g}")
    r = run("validate", "--deployments", str(d / "silicon.csv"))
    check("TTFT med|err|" in r.stdout and "skipped" in r.stdout, f"validate --deployments text: {r.stdout}")
    # --framework and --token-budget override the row's backend and the benchmark rule: the
    # ideal engine at 8192 tokens is plan's default engine.
    v_ideal = json.loads(run("validate", "--deployments", str(d / "silicon.csv"), "--json", "--framework", "ideal",
                             "--token-budget", "8192").stdout or "{}")
    p_ideal = json.loads(run("plan", "--arch", "llama3_8b", "--gpu", "h100", "--gpus", "1", "--isl", "1024", "--osl",
                             "128", "--concurrency", "8", "--mode", "agg", "--max-batch", "8", "--token-budgets",
                             "8192", "--hp", "1", *bench, "--json").stdout or "{}")
    a_ideal = {w["id"]: w for w in v_ideal.get("worst", [])}.get("a", {})
    pinned_ideal = [c for c in p_ideal.get("candidates", []) if c["tp"] == 1 and c["replicas"] == 1]
    check(pinned_ideal and p_ideal.get("engine", {}).get("framework") == "ideal" and
          abs(a_ideal["ttft_ms"]["modelled"] - pinned_ideal[0]["ttft_ms"]["mean"]) < 1e-9 and
          a_ideal["ttft_ms"]["modelled"] != a["ttft_ms"]["modelled"],
          f"validate --framework ideal --token-budget 8192: plan's default engine: {a_ideal} / {pinned_ideal[:1]}")
    r = run("validate", "--deployments", str(d / "silicon.csv"), "--token-budget", "lots", expect=2)
    check("--token-budget" in r.stderr, f"validate --token-budget lots: {r.stderr}")
    # Rows run on several threads; the report is the same for any count.
    one, three = (run("validate", "--deployments", str(d / "silicon.csv"), "--json", "--threads", n).stdout
                  for n in ("1", "3"))
    check(one and one == three, "validate --deployments: --threads 1 and --threads 3 must report the same")
    # A row's provenance names its harness: Llama-3.1-70B from InferenceX's 2026-04-06 export,
    # measured before its scripts were removed (2025-10-29), ran TensorRT-LLM with
    # max_num_tokens 16384 and, at 1k/1k below TP 8, batch waiting (20 iterations, 0.9), under
    # 10 rounds of lengths drawn from 0.8 × ISL / OSL up: `simulate` with those flags. Two
    # clients: no CUDA-graph size between 1 and 2 to pad to. Measured a week later, it runs
    # InferenceX's client on the framework's defaults; with --recipe aiconfigurator, the
    # generator's recipe.
    (d / "model_configs" / "meta-llama--Llama-3.1-70B_config.json").write_text(
        (root / "data/models/llama3_70b.json").read_text())
    ix_header = header.replace(",silicon_ttft_ms", ",silicon_data_source,silicon_ttft_ms")
    src = "source_file=2026-04-06.csv; model=Llama-3.1-70B; silicon_concurrency=2; measured={}; wip=False"
    ix_rows = [ix_header] + [f"{i},trtllm,,meta-llama/Llama-3.1-70B,h100_sxm,bf16,agg,1024,1024,bf16,,2,4,1,1,1,1,"
                             f"{src.format(m)},150,12" for i, m in (("ix", "2025-10-29T00:00:00.000Z"),
                                                                    ("later", "2025-11-05T00:00:00.000Z"))]
    (d / "inferencex.csv").write_text("\n".join(ix_rows) + "\n")
    v_ix = json.loads(run("validate", "--deployments", str(d / "inferencex.csv"), "--json").stdout or "{}")
    ix = {w["id"]: w for w in v_ix.get("worst", [])}
    s_ix = json.loads(run("simulate", "--model-config", str(d / "model_configs" / "meta-llama--Llama-3.1-70B_config.json"),
                          "--gpu", "h100", "--tp", "4", "--batch", "2", "--concurrency", "2", "--isl", "1024", "--osl",
                          "1024", "--framework", "trtllm", "--token-budget", "16384", "--batch-wait-iters", "20",
                          "--batch-wait-ratio", "0.9", "--rounds", "10", "--min-length-ratio", "0.8",
                          "--json").stdout or "{}")
    check(ix.get("ix", {}).get("harness") == "inferencex" and ix["ix"]["token_budget"] == 16384 and s_ix and
          abs(ix["ix"]["ttft_ms"]["modelled"] - s_ix["ttft_ms"]["mean"]) < 1e-9 and
          abs(ix["ix"]["tpot_ms"]["modelled"] - s_ix["tpot_ms"]["mean"]) < 1e-9,
          f"validate: an InferenceX Llama-3.1-70B row is simulate with its script's flags: {ix.get('ix')} / "
          f"{s_ix.get('ttft_ms')}")
    check(ix.get("later", {}).get("harness") == "inferencex" and ix["later"]["token_budget"] == 8192,
          f"validate: an InferenceX row measured after its 70B scripts were dropped runs the client with "
          f"TensorRT-LLM's defaults (max_num_tokens 8192): {ix.get('later')}")
    v_aic = json.loads(run("validate", "--deployments", str(d / "inferencex.csv"), "--json", "--recipe",
                           "aiconfigurator").stdout or "{}")
    aic = {w["id"]: w for w in v_aic.get("worst", [])}
    check(aic.get("ix", {}).get("harness") == "aiconfigurator" and aic["ix"]["token_budget"] == 2 + 1024 + 1502 and
          aic["ix"]["ttft_ms"]["modelled"] != ix.get("ix", {}).get("ttft_ms", {}).get("modelled"),
          f"validate --recipe aiconfigurator: every row as the generator launched it (batch + ISL + 1500 rounded "
          f"to 32): {aic.get('ix')}")
    # An InferenceX SGLang row (its results database: db-dump) runs its script's server: Qwen3.5
    # on B200 with --chunked-prefill-size 32768, --stream-interval 30 and, from 16 clients,
    # --scheduler-recv-interval 30, under the same client: `simulate` with those flags.
    (d / "model_configs" / "Qwen--Qwen3.5-397B-A17B_config.json").write_text(
        (root / "data/models/qwen3_5_397b_a17b.json").read_text())
    sg_src = "db-dump/2026-04-27; config_id=1; silicon_concurrency=16; measured=2026-03-24T00:00:00.000Z"
    sg_rows = [ix_header, f"sg,sglang,0.5.9,Qwen/Qwen3.5-397B-A17B,b200_sxm,fp8,agg,1024,1024,fp8,fp8,16,8,1,1,8,1,"
                          f"{sg_src},400,12"]
    (d / "sglang.csv").write_text("\n".join(sg_rows) + "\n")
    v_sg = json.loads(run("validate", "--deployments", str(d / "sglang.csv"), "--json").stdout or "{}")
    sg = {w["id"]: w for w in v_sg.get("worst", [])}.get("sg", {})
    s_sg = json.loads(run("simulate", "--model-config", str(d / "model_configs" / "Qwen--Qwen3.5-397B-A17B_config.json"),
                          "--quant", "fp8", "--kv-dtype", "fp8", "--gpu", "b200", "--tp", "8", "--ep", "1", "--batch",
                          "16", "--concurrency", "16", "--isl", "1024", "--osl", "1024", "--framework", "sglang",
                          "--token-budget", "32768", "--stream-interval", "30", "--recv-interval", "30", "--rounds",
                          "10", "--min-length-ratio", "0.8", "--json").stdout or "{}")
    check(sg.get("harness") == "inferencex" and sg.get("token_budget") == 32768 and s_sg and
          abs(sg["ttft_ms"]["modelled"] - s_sg["ttft_ms"]["mean"]) < 1e-9 and
          abs(sg["tpot_ms"]["modelled"] - s_sg["tpot_ms"]["mean"]) < 1e-9,
          f"validate: an InferenceX SGLang Qwen3.5 row is simulate with its script's flags: {sg} / "
          f"{s_sg.get('ttft_ms')} {s_sg.get('engine')}")
    # An InferenceX vLLM MiniMax-M2.5 row measured once its script launched with
    # --max-num-batched-tokens ISL × 2 (2026-04-03 on B200 fp8) runs that budget; one measured
    # before it, vLLM's default (8192).
    (d / "model_configs" / "MiniMaxAI--MiniMax-M2.5_config.json").write_text(
        (root / "data/models/minimax_m2_5.json").read_text())
    mm_src = "source_file=2026-04-06.csv; model=MiniMax-M2.5; silicon_concurrency=4; measured={}; wip=False"
    mm_rows = [ix_header] + [f"{i},vllm,,MiniMaxAI/MiniMax-M2.5,b200_sxm,fp8,agg,1024,1024,fp8,fp8,4,2,1,1,2,1,"
                             f"{mm_src.format(m)},60,9" for i, m in (("upgraded", "2026-04-03T00:00:00.000Z"),
                                                                     ("before", "2026-03-28T00:00:00.000Z"))]
    (d / "minimax.csv").write_text("\n".join(mm_rows) + "\n")
    mm = {w["id"]: w for w in json.loads(run("validate", "--deployments", str(d / "minimax.csv"),
                                             "--json").stdout or "{}").get("worst", [])}
    check(mm.get("upgraded", {}).get("token_budget") == 2048 and mm.get("before", {}).get("token_budget") == 8192,
          f"validate: MiniMax-M2.5 on vLLM takes ISL x 2 tokens an iteration from its script's upgrade: {mm}")
    # vLLM runs an iteration with prompt rows above its captured sizes without a graph, its host
    # launching each kernel (55 µs by default). The upgraded script captures to 2,048 tokens, so
    # its 2,048-token iterations replay graphs: the same TTFT with the host time off; before it,
    # vLLM's 512 leaves the 4 clients' 4,096-token iterations eager.
    mm_off = {w["id"]: w["ttft_ms"]["modelled"] for w in json.loads(
        run("validate", "--deployments", str(d / "minimax.csv"), "--json", "--eager-launch-us", "0").stdout or
        "{}").get("worst", [])}
    check(mm_off.get("upgraded") == mm.get("upgraded", {}).get("ttft_ms", {}).get("modelled") and
          mm.get("before", {}).get("ttft_ms", {}).get("modelled", 0) > mm_off.get("before", 1e9),
          f"validate: vLLM's prompt iterations above its captured sizes take their host time: {mm} / off {mm_off}")
    # InferenceX's Llama-3.1-70B script on B200 captured decode-only graphs (FULL_DECODE_ONLY):
    # one client's 256-token prompt runs eagerly there, and replays a piecewise graph on H100.
    l_src = "source_file=2026-04-06.csv; model=Llama-3.1-70B; silicon_concurrency=1; measured=2025-10-29; wip=False"
    (d / "llama_vllm.csv").write_text("\n".join([ix_header] + [
        f"{g},vllm,,meta-llama/Llama-3.1-70B,{g}_sxm,fp8,agg,256,64,fp8,,1,8,1,1,1,1,{l_src},30,7"
        for g in ("b200", "h100")]) + "\n")
    lv, lv_off = ({w["id"]: w["ttft_ms"]["modelled"] for w in json.loads(
        run("validate", "--deployments", str(d / "llama_vllm.csv"), "--json", *flags).stdout or "{}").get("worst", [])}
        for flags in ((), ("--eager-launch-us", "0")))
    check(len(lv) == 2 and lv["h100"] == lv_off["h100"] and lv["b200"] > lv_off["b200"],
          f"validate: vLLM with decode-only graphs runs every prompt iteration eagerly: {lv} / off {lv_off}")
    # Those runs served NVIDIA's static-scale fp8 checkpoint: each framework fused the
    # projections' quantize where it could (the all-reduce's RMSNorm only with TP > 1).
    (d / "llama_fp8.csv").write_text("\n".join([ix_header] + [
        f"{i},{fw},,meta-llama/Llama-3.1-70B,{g}_sxm,fp8,agg,256,64,fp8,,1,{tp},1,1,1,1,{l_src},30,7"
        for i, fw, g, tp in (("vb", "vllm", "b200", 8), ("vh", "vllm", "h100", 8), ("t1", "trtllm", "b200", 1),
                             ("t8", "trtllm", "b200", 8))]) + "\n")
    lq = {w["id"]: w["quantization"] for w in json.loads(
        run("validate", "--deployments", str(d / "llama_fp8.csv"), "--json", "--worst", "10").stdout or
        "{}").get("worst", [])}
    check(lq == {"vb": "gemm=fp8 moe=bf16 kv=fp8 fp8-from=norm,attention",
                 "vh": "gemm=fp8 moe=bf16 kv=fp8 fp8-from=norm,activation",
                 "t1": "gemm=fp8 moe=bf16 kv=fp8 fp8-from=attention,activation",
                 "t8": "gemm=fp8 moe=bf16 kv=fp8 fp8-from=norm,attention,activation"},
          f"validate: Llama-3.1-70B fp8's recipes fuse the quantize as each framework did: {lq}")
    # InferenceX's exports write a single-node TP 8 / EP 8 run as tp_size 64, moe_tp_size 8,
    # moe_ep_size 8: it runs as 8 GPUs, experts EP 8; the same columns from another source
    # are read as written (64 GPUs, the experts split both ways).
    (d / "model_configs" / "deepseek-ai--DeepSeek-V3_config.json").write_text(
        (root / "data/models/deepseek_v3.json").read_text())
    ds_src = ("source_file=2026-04-06.csv; model=DeepSeek-R1; silicon_concurrency=4; "
              "measured=2026-02-05T00:00:00.000Z; wip=False")
    ds_rows = [ix_header] + [f"{i},sglang,,deepseek-ai/DeepSeek-V3,b200_sxm,fp8,agg,1024,1024,fp8_block,fp8_block,"
                             f"{layout},{src},300,9"
                             for i, layout, src in (("ix", "4,64,1,1,8,8", ds_src), ("other", "4,64,1,1,8,8", "x=1"),
                                                    ("dp", "1,1,1,64,8,8", ds_src))]
    (d / "deepseek.csv").write_text("\n".join(ds_rows) + "\n")
    ds = {w["id"]: w for w in json.loads(run("validate", "--deployments", str(d / "deepseek.csv"),
                                             "--json").stdout or "{}").get("worst", [])}
    check(ds.get("ix", {}).get("tp") == 8 and ds["ix"].get("moe_ep") == 8 and ds.get("other", {}).get("tp") == 64,
          f"validate: InferenceX's tp_size X*X with moe_tp = moe_ep = X is a TP X, EP X worker: {ds}")
    # Under DP attention the export multiplies attention_dp_size instead: DP 8, EP 8, the
    # same 64 clients.
    check(ds.get("dp", {}).get("tp") == 1 and ds["dp"].get("attention_dp") == 8 and ds["dp"].get("moe_ep") == 8 and
          ds["dp"].get("concurrency") == 64, f"validate: InferenceX's DP X*X is DP X, EP X: {ds.get('dp')}")
    # TensorRT-LLM runs a prompt iteration eagerly, its host launching kernel by kernel (55 µs
    # each by default), unless the script captured piecewise graphs: InferenceX's
    # dsr1_fp8_b200_trt.sh does at 1k/1k from 64 clients from ec7bafaae (2026-01-29). A row
    # measured after it is the same with the host time off; one measured before it is not.
    pw_src = "source_file=2026-04-06.csv; model=DeepSeek-R1; silicon_concurrency=64; measured={}; wip=False"
    (d / "piecewise.csv").write_text("\n".join([ix_header] + [
        f"{i},trtllm,,deepseek-ai/DeepSeek-V3,b200_sxm,fp8,agg,1024,1024,fp8_block,fp8_block,64,8,1,1,1,8,"
        f"{pw_src.format(m)},300,20" for i, m in (("piecewise", "2026-02-05T00:00:00.000Z"),
                                                   ("eager", "2026-01-05T00:00:00.000Z"))]) + "\n")
    pw, pw_off = ({w["id"]: w["ttft_ms"]["modelled"] for w in json.loads(
        run("validate", "--deployments", str(d / "piecewise.csv"), "--json", *flags).stdout or "{}").get("worst", [])}
        for flags in ((), ("--eager-launch-us", "0")))
    check(len(pw) == 2 and pw == {**pw_off, "eager": pw.get("eager")} and pw.get("eager", 0) > pw_off.get("eager", 0),
          f"validate: TensorRT-LLM's eager prompt iterations take their host time unless the script captured "
          f"piecewise graphs: {pw} / without host time {pw_off}")
    # Its vLLM rows of { tp: 4, ep: 4 } (one engine, experts EP over the TP ranks) come as tp 4,
    # attention DP 4, EP 16: one TP 4 / EP 4 engine of the same 4 clients.
    (d / "minimax_ep.csv").write_text("\n".join([ix_header, "mmx,vllm,,MiniMaxAI/MiniMax-M2.5,b200_sxm,fp8,agg,1024,1024,"
                                                 f"fp8,fp8,1,4,1,4,1,16,{mm_src.format('2026-04-03')},60,9"]) + "\n")
    mmx = {w["id"]: w for w in json.loads(run("validate", "--deployments", str(d / "minimax_ep.csv"),
                                              "--json").stdout or "{}").get("worst", [])}.get("mmx", {})
    check(mmx.get("tp") == 4 and mmx.get("attention_dp") == 1 and mmx.get("moe_ep") == 4 and
          mmx.get("concurrency") == 4, f"validate: InferenceX's vLLM TP X / EP X written as DP X, EP X*X: {mmx}")
    # An InferenceX disaggregated row records neither its worker counts nor its caps: the sweep
    # entry that stood in InferenceX's config when it was measured gives them (DisaggHarness,
    # data/harness/). A data directory whose harness table is made up here: the first entry
    # (1 prefill worker, batch 2, 4096 tokens; 2 decode workers, batch 4) is `simulate --mode
    # disagg` with those flags under InferenceX's client; a later entry (4 decode workers, no
    # cap named: the 8 clients over them) holds from February; speculative decoding, two
    # layouts for one row and no entry at all are counted skips, each with its reason.
    data = d / "data"
    data.mkdir()
    for entry in (root / "data").iterdir():
        if entry.name != "harness":
            (data / entry.name).symlink_to(entry)
    (data / "harness").mkdir()
    hx_header = ("valid_from,valid_until,commit,config,model_path,system,backend,precision,isl,osl,spec_decoding,"
                 "concurrency,prefill_workers,prefill_gpus,prefill_ep,prefill_attention_dp,prefill_max_batch,"
                 "prefill_max_tokens,decode_workers,decode_gpus,decode_ep,decode_attention_dp,decode_max_batch,"
                 "decode_max_tokens,recipe")
    hx = "{},{},c0ffee,llama-disagg,meta-llama/Llama-3.1-8B-Instruct,h100_sxm,trtllm,bf16,1024,128,{},{},1,1,1,1,{}"
    harness_rows = [hx_header,
                    hx.format("2026-01-01T00:00:00Z", "2026-02-01T00:00:00Z", "none", 8, "2,4096,2,1,1,1,4,,r.yaml"),
                    hx.format("2026-02-01T00:00:00Z", "", "none", 8, ",,4,1,1,1,,,"),
                    hx.format("2026-01-01T00:00:00Z", "", "none", 16, ",,2,1,1,1,,,"),
                    hx.format("2026-01-01T00:00:00Z", "", "mtp", 16, ",,2,1,1,1,,,"),
                    hx.format("2026-01-01T00:00:00Z", "", "mtp", 32, ",,2,1,1,1,,,"),
                    hx.format("2026-01-01T00:00:00Z", "2026-02-01T00:00:00Z", "mtp", 12, ",,2,1,1,1,,,gen2_mtp3.yaml"),
                    hx.format("2026-02-01T00:00:00Z", "", "none", 12, ",,2,1,1,1,,,gen2.yaml"),
                    hx.format("2026-01-01T00:00:00Z", "", "none", 4, ",,1,1,1,1,,,"),
                    hx.format("2026-01-01T00:00:00Z", "", "none", 4, ",,2,1,1,1,,,")]
    (data / "harness" / "inferencex_disagg.csv").write_text("\n".join(harness_rows) + "\n")
    env = dict(os.environ, COSTDSL_DATA_DIR=str(data))
    dx_header = ("id,backend,backend_version,model_path,system,precision,mode,isl,osl,gemm_quant_mode,moe_quant_mode,"
                 "prefill_batch_size,prefill_num_workers,prefill_tp_size,prefill_moe_ep_size,decode_batch_size,"
                 "decode_num_workers,decode_tp_size,decode_moe_ep_size,silicon_data_source,silicon_ttft_ms,"
                 "silicon_tpot_ms")
    dx = ("{},trtllm,,meta-llama/Llama-3.1-8B-Instruct,h100_sxm,bf16,disagg,1024,128,bf16,,,,1,1,,,1,1,"
          "source_file=2026-03-25.csv; silicon_concurrency={}; measured={}; wip=False,200,8")
    dx_rows = [dx_header, dx.format("jan", 8, "2026-01-15T10:00:00Z"), dx.format("feb", 8, "2026-02-10T10:00:00Z"),
               dx.format("both", 16, "2026-01-15T10:00:00Z"), dx.format("mtp", 32, "2026-01-15T10:00:00Z"),
               dx.format("two", 4, "2026-01-15T10:00:00Z"), dx.format("early", 8, "2025-12-01T10:00:00Z"),
               dx.format("pr", 8, "2025-12-31T20:00:00Z"), dx.format("mtp3", 12, "2026-01-15T10:00:00Z"),
               dx.format("plain12", 12, "2026-02-10T10:00:00Z")]
    (d / "disagg.csv").write_text("\n".join(dx_rows) + "\n")
    v_dx = json.loads(run("validate", "--deployments", str(d / "disagg.csv"), "--json", "--worst", "100",
                          env=env).stdout or "{}")
    dxr = {w["id"]: w for w in v_dx.get("worst", [])}
    jan, feb = dxr.get("jan", {}), dxr.get("feb", {})
    s_dx = json.loads(run("simulate", "--model-config",
                          str(d / "model_configs" / "meta-llama--Llama-3.1-8B-Instruct_config.json"), "--gpu", "h100", "--mode", "disagg", "--prefill-tp", "1", "--prefill-workers", "1",
                          "--prefill-batch", "2", "--tp", "1", "--decode-workers", "2", "--batch", "4", "--framework",
                          "trtllm", "--token-budget", "4096", "--isl", "1024", "--osl", "128", "--concurrency", "8",
                          "--rounds", "10", "--min-length-ratio", "0.8", "--json").stdout or "{}")
    check(jan.get("harness") == "inferencex" and jan.get("decode", {}).get("workers") == 2 and
          jan["decode"].get("batch") == 4 and jan.get("prefill", {}).get("batch") == 2 and
          "c0ffee" in jan.get("unit_source", "") and "r.yaml" in jan["unit_source"] and s_dx and
          abs(jan["ttft_ms"]["modelled"] - s_dx["ttft_ms"]["mean"]) < 1e-9 and
          abs(jan["tpot_ms"]["modelled"] - s_dx["tpot_ms"]["mean"]) < 1e-9,
          f"validate: an InferenceX disaggregated row is simulate --mode disagg with its sweep entry's unit: {jan} / "
          f"{s_dx.get('ttft_ms')}")
    check(feb.get("decode", {}).get("workers") == 4 and feb["decode"].get("batch") == 2 and
          feb.get("prefill", {}).get("batch") == 0 and feb.get("token_budget") == 8192 and
          feb["ttft_ms"]["modelled"] != jan.get("ttft_ms", {}).get("modelled"),
          f"validate: measured in February, the row takes the entry of February (4 decode workers, 2 clients each; "
          f"the prefill worker at TensorRT-LLM's defaults): {feb}")
    dskip = v_dx.get("skipped", {})
    # Measured 4 hours before its entry reached the config (a pull request's sweep): that entry.
    check(dxr.get("pr", {}).get("decode", {}).get("workers") == 2 and
          dxr["pr"]["ttft_ms"]["modelled"] == jan.get("ttft_ms", {}).get("modelled"),
          f"validate: a run measured hours before its entry's commit takes that entry: {dxr.get('pr')}")
    # Speculative decoding whose recipe names its depth (TensorRT-LLM's `_mtp3`): the decode
    # workers verify 3 drafts a step and advance by the accepted ones, so the same layout and
    # load run a shorter TPOT than the plain entry's row a month later.
    mtp3, plain12 = dxr.get("mtp3", {}), dxr.get("plain12", {})
    check("gen2_mtp3.yaml" in mtp3.get("unit_source", "") and plain12 and
          mtp3["tpot_ms"]["modelled"] < 0.8 * plain12["tpot_ms"]["modelled"],
          f"validate: an MTP entry's row runs speculative decoding at its recipe's depth: {mtp3} / {plain12}")
    for needle in ("ran with and without speculative decoding", "does not give the depth (_mtpN)",
                   "2 entries with different worker counts", "had no disaggregated entry for it within a day"):
        check(sum(e["count"] for k, e in dskip.items() if needle in k) == 1,
              f"validate: one InferenceX disaggregated row skipped for {needle!r}: {dskip}")
    check(v_dx.get("simulated") == 5, f"validate: 5 of the 9 disaggregated rows simulated: {v_dx.get('simulated')}")
    # A row's fp8 names the precision; a checkpoint shipped with 128x128 block scales (here a
    # 2-layer MiniMax-M2.5) runs its experts block-scaled (the fp8_block fused-MoE tables).
    # TensorRT-LLM's disaggregated fp8 recipes run DeepGEMM experts, which no table measures:
    # those leaves take the roofline, and the row is `simulate --roofline-kind fused_moe`.
    mm2 = {"architectures": ["MiniMaxM2ForCausalLM"], "model_type": "minimax_m2", "hidden_size": 3072,
           "num_attention_heads": 48, "num_key_value_heads": 8, "head_dim": 128, "intermediate_size": 1536,
           "num_local_experts": 256, "num_experts_per_tok": 8, "vocab_size": 200064, "num_hidden_layers": 2,
           "max_position_embeddings": 196608, "rotary_dim": 64, "shared_intermediate_size": 0,
           "quantization_config": {"quant_method": "fp8", "weight_block_size": [128, 128]}}
    (d / "model_configs" / "acme--Mm-2L_config.json").write_text(json.dumps(mm2))
    (data / "harness" / "inferencex_disagg.csv").write_text("\n".join(harness_rows + [
        hx.format("2026-01-01T00:00:00Z", "", "none", 8, "2,4096,2,1,1,1,4,,r.yaml")
          .replace("meta-llama/Llama-3.1-8B-Instruct", "acme/Mm-2L").replace(",bf16,", ",fp8,")]) + "\n")
    (d / "block.csv").write_text("\n".join([
        dx_header,
        dx.format("blk", 8, "2026-01-15T10:00:00Z").replace("meta-llama/Llama-3.1-8B-Instruct", "acme/Mm-2L")
          .replace(",bf16,disagg,1024,128,bf16,,", ",fp8,disagg,1024,128,fp8,fp8,")]) + "\n")
    v_blk = json.loads(run("validate", "--deployments", str(d / "block.csv"), "--json", env=env).stdout or "{}")
    blk = {w["id"]: w for w in v_blk.get("worst", [])}.get("blk", {})
    sim_blk = ["simulate", "--model-config", str(d / "model_configs" / "acme--Mm-2L_config.json"), "--gpu", "h100",
               "--mode", "disagg", "--prefill-tp", "1", "--prefill-workers", "1", "--prefill-batch", "2", "--tp", "1",
               "--decode-workers", "2", "--batch", "4", "--framework", "trtllm", "--token-budget", "4096", "--isl",
               "1024", "--osl", "128", "--concurrency", "8", "--rounds", "10", "--min-length-ratio", "0.8", "--quant",
               "gemm=fp8,moe=fp8_block", "--kv-dtype", "fp8", "--json"]
    s_blk = json.loads(run(*sim_blk, "--roofline-kind", "fused_moe").stdout or "{}")
    s_tab = json.loads(run(*sim_blk).stdout or "{}")
    check(blk.get("quantization") == "gemm=fp8 moe=fp8_block kv=fp8" and
          blk.get("prefill", {}).get("roofline_kinds") == ["fused_moe"] and
          blk.get("decode", {}).get("roofline_kinds") == ["fused_moe"] and
          s_blk and abs(blk["ttft_ms"]["modelled"] - s_blk["ttft_ms"]["mean"]) < 1e-9 and
          abs(blk["tpot_ms"]["modelled"] - s_blk["tpot_ms"]["mean"]) < 1e-9 and
          s_tab and s_tab["ttft_ms"]["mean"] != s_blk["ttft_ms"]["mean"],
          f"validate: block-scaled experts, DeepGEMM's on the roofline: {blk} / {s_blk.get('ttft_ms')} / "
          f"{s_tab.get('ttft_ms')}")
    # --roofline-kind on validate replaces every row's recipe's choice.
    v_blk = json.loads(run("validate", "--deployments", str(d / "block.csv"), "--json", "--roofline-kind", "gemm",
                           env=env).stdout or "{}")
    blk_g = {w["id"]: w for w in v_blk.get("worst", [])}.get("blk", {})
    check(blk_g.get("decode", {}).get("roofline_kinds") == ["gemm"] and
          blk_g["ttft_ms"]["modelled"] != blk["ttft_ms"]["modelled"],
          f"validate --roofline-kind gemm: the command's kinds, not the recipe's: {blk_g}")
    # Each role's experts' kernel from its srt-slurm recipe (the harness's prefill_ /
    # decode_moe_backend): an SGLang decode worker that dispatches through DeepEP times its
    # experts by the roofline, its prefill worker on flashinfer's kernel keeps the tables.
    hx_kernels = hx_header + ",prefill_moe_backend,decode_moe_backend,decode_stream_interval"
    sg_entry = (hx.format("2026-01-01T00:00:00Z", "", "none", 8, "2,4096,2,1,1,1,4,,r.yaml")
                .replace("meta-llama/Llama-3.1-8B-Instruct", "acme/Mm-2L").replace(",bf16,", ",fp8,")
                .replace(",trtllm,", ",sglang,"))
    sg_row = (dx.format("sg", 8, "2026-01-15T10:00:00Z").replace("meta-llama/Llama-3.1-8B-Instruct", "acme/Mm-2L")
              .replace(",bf16,disagg,1024,128,bf16,,", ",fp8,disagg,1024,128,fp8,fp8_block,")
              .replace("sg,trtllm,", "sg,sglang,"))
    # The results database's row of that deployment records its unit; it takes what the
    # recipe ran from the entry of its layout that stood that day.
    rec_row = (sg_row.replace("sg,sglang,", "rec,sglang,").replace(",fp8_block,,,1,1,,,1,1,", ",fp8_block,2,1,1,1,4,2,1,1,")
               .replace("source_file=2026-03-25.csv;", "db-dump/2026-04-27; config_id=1;")
               .replace("measured=2026-01-15T10:00:00Z", "measured=2026-01-15T00:00:00.000Z"))
    (d / "sglang.csv").write_text("\n".join([dx_header, sg_row, rec_row]) + "\n")
    runs, recs = {}, {}
    for kernels in ("flashinfer_trtllm,deepep,", ",,", ",,10"):
        (data / "harness" / "inferencex_disagg.csv").write_text(
            "\n".join([hx_kernels, sg_entry + "," + kernels]) + "\n")
        v_sg = json.loads(run("validate", "--deployments", str(d / "sglang.csv"), "--json", env=env).stdout or "{}")
        runs[kernels] = {w["id"]: w for w in v_sg.get("worst", [])}.get("sg", {})
        recs[kernels] = {w["id"]: w for w in v_sg.get("worst", [])}.get("rec", {})
    # InferenceX benchmarks DeepSeek-R1 (dsr1); the sample exports some of the same runs as
    # DeepSeek-V3: a V3 row takes R1's entry (here the 2-layer config under V3's name).
    (d / "model_configs" / "deepseek-ai--DeepSeek-V3_config.json").write_text(json.dumps(mm2))
    (data / "harness" / "inferencex_disagg.csv").write_text("\n".join(
        [hx_kernels, sg_entry.replace("acme/Mm-2L", "deepseek-ai/DeepSeek-R1") + ",flashinfer_trtllm,deepep,"]) + "\n")
    (d / "v3.csv").write_text("\n".join([dx_header] + [row.replace("acme/Mm-2L", "deepseek-ai/DeepSeek-V3")
                                                         for row in (sg_row, rec_row)]) + "\n")
    v_v3 = {w["id"]: w for w in json.loads(run("validate", "--deployments", str(d / "v3.csv"), "--json",
                                               env=env).stdout or "{}").get("worst", [])}
    check(v_v3.get("sg", {}).get("decode", {}).get("workers") == 2 and "unit_source" in v_v3["sg"] and
          v_v3.get("rec", {}).get("decode", {}).get("roofline_kinds") == ["fused_moe"],
          f"validate: DeepSeek-V3 rows take DeepSeek-R1's sweep entries: {v_v3}")
    check(recs[",,10"] and recs[",,"] and "unit_source" not in recs[",,"] and
          recs[",,10"]["ttft_ms"]["modelled"] > recs[",,"]["ttft_ms"]["modelled"] and
          recs["flashinfer_trtllm,deepep,"].get("decode", {}).get("roofline_kinds") == ["fused_moe"],
          f"validate: a recorded unit takes its recipe's kernel and stream interval from the harness: {recs}")
    deepep, tables, streamed = runs["flashinfer_trtllm,deepep,"], runs[",,"], runs[",,10"]
    check(deepep.get("decode", {}).get("moe_kernel") == "deepep" and
          deepep["decode"].get("roofline_kinds") == ["fused_moe"] and "roofline_kinds" not in deepep.get("prefill", {}) and
          deepep["prefill"].get("moe_kernel") == "flashinfer_trtllm" and "roofline_kinds" not in tables.get("decode", {}) and
          tables and deepep["tpot_ms"]["modelled"] != tables["tpot_ms"]["modelled"],
          f"validate: a DeepEP decode worker's experts on the roofline, the prefill worker's on the tables: {deepep} / "
          f"{tables}")
    # Its recipe's stream-interval 10 on the decode workers: the first token reaches the
    # client with the tenth, as `simulate --stream-interval 10` has it.
    sim_sg = [a if a != "trtllm" else "sglang" for a in sim_blk]
    s_st = json.loads(run(*sim_sg, "--stream-interval", "10").stdout or "{}")
    check(streamed and s_st and abs(streamed["ttft_ms"]["modelled"] - s_st["ttft_ms"]["mean"]) < 1e-9 and
          abs(streamed["tpot_ms"]["modelled"] - s_st["tpot_ms"]["mean"]) < 1e-9 and
          streamed["ttft_ms"]["modelled"] > tables["ttft_ms"]["modelled"],
          f"validate: the decode workers' stream-interval from their recipe: {streamed} / {s_st.get('ttft_ms')} / "
          f"{tables.get('ttft_ms')}")
    r = run("simulate", *sim_blk[1:], "--roofline-kind", "fused_mo", expect=2)
    check("--roofline-kind" in r.stderr and "fused_mo" in r.stderr, f"--roofline-kind: an unknown kind: {r.stderr}")
    # --recipe aiconfigurator reads no harness: the rows keep their unit unrecorded.
    v_dx = json.loads(run("validate", "--deployments", str(d / "disagg.csv"), "--json", "--recipe", "aiconfigurator",
                          env=env).stdout or "{}")
    check(v_dx.get("simulated") == 0 and v_dx.get("skipped", {}).get(
              "prefill_num_workers empty: the disaggregated unit is not recorded", {}).get("count") == 9,
          f"validate --recipe aiconfigurator: no unit without the harness: {v_dx.get('skipped')}")
    # A harness table that breaks its rules is a FILE:LINE error.
    (data / "harness" / "inferencex_disagg.csv").write_text(
        "\n".join([hx_header, hx.format("2026-01-01T00:00:00Z", "", "none", 8, ",,2,4,1,3,,,")]) + "\n")
    r = run("validate", "--deployments", str(d / "disagg.csv"), env=env, expect=2)
    check("inferencex_disagg.csv:2: decode_attention_dp 3 must be 1 or the worker's 4 GPUs" in r.stderr,
          f"validate: a bad harness table: {r.stderr}")
    (data / "harness" / "inferencex_disagg.csv").write_text(
        "\n".join([hx_header, hx.format("2026-13-01T00:00:00Z", "", "none", 8, ",,2,1,1,1,,,")]) + "\n")
    r = run("validate", "--deployments", str(d / "disagg.csv"), env=env, expect=2)
    check("inferencex_disagg.csv:2: valid_from '2026-13-01T00:00:00Z' .. valid_until '' is not a time span" in r.stderr,
          f"validate: a harness entry of no time span: {r.stderr}")
    # --config-for names the config.json of a model filed under another name.
    cfg = d / "model_configs" / "meta-llama--Llama-3.1-8B-Instruct_config.json"
    v = json.loads(run("validate", "--deployments", str(d / "silicon.csv"), "--json", "--config-for",
                       f"acme/Nonexistent-7B={cfg}").stdout or "{}")
    check(v.get("simulated") == 4, f"--config-for: the acme row simulated with the given config: {v.get('skipped')}")
    # TP experts: moe_tp_size = tp_size with moe_ep_size 1 pins Parallel{tp, ep 1}, the family's
    # TP-expert arch, exactly what `simulate --tp 2 --ep 1` runs; experts both tensor- and
    # expert-parallel over one attention group pin Parallel{tp, ep tp, moe_tp}, what `simulate
    # --tp 4 --moe-tp 2` runs; with attention DP they stay a counted skip with their reason.
    moe_row = "trtllm,1.2,mistralai/Mixtral-8x7B-v0.1,h100_sxm,bf16,agg,1024,128,bf16,bf16,8,{},1,{},{},{},300,10"
    (d / "moe.csv").write_text("\n".join([header, "g," + moe_row.format(2, 1, 2, 1), "h," + moe_row.format(4, 1, 2, 2),
                                          "i," + moe_row.format(2, 2, 2, 2)]) + "\n")
    mixtral = root / "data/models/mixtral_8x7b.json"
    v = json.loads(run("validate", "--deployments", str(d / "moe.csv"), "--json", "--config-for",
                       f"mistralai/Mixtral-8x7B-v0.1={mixtral}").stdout or "{}")
    hybrid_dp = "moe_tp_size 2 x moe_ep_size 2 with attention_dp_size 2: experts split both ways are modelled over"
    check(v.get("simulated") == 2 and any(k.startswith(hybrid_dp) and e["count"] == 1
                                          for k, e in v.get("skipped", {}).items()),
          f"validate --deployments: the TP-expert and hybrid rows simulated, the hybrid one under DP skipped: "
          f"{v.get('skipped')}")
    rows = {w["id"]: w for w in v.get("worst", [])}
    for rid, flags in (("g", ["--tp", "2", "--ep", "1"]), ("h", ["--tp", "4", "--moe-tp", "2"])):
        sim = json.loads(run("simulate", "--model-config", str(mixtral), "--gpu", "h100", *flags, "--batch", "8",
                             "--isl", "1024", "--osl", "128", "--framework", "trtllm", "--token-budget", "2560",
                             "--json").stdout or "{}")
        w = rows.get(rid, {})
        check(w and sim and abs(w["ttft_ms"]["modelled"] - sim["ttft_ms"]["mean"]) < 1e-9 and
              abs(w["tpot_ms"]["modelled"] - sim["tpot_ms"]["mean"]) < 1e-9,
              f"validate --deployments: row {rid} is simulate {' '.join(flags)}'s means: {w} / {sim.get('ttft_ms')}")
    # simulate's KV room is the pool's capacity; a linear-attention model's recurrent state is part
    # of each request's footprint there, and the report says how much (absent without one).
    q = ["simulate", "--arch", "qwen3_5_397b_a17b", "--gpu", "b200", "--quant", "fp8", "--tp", "4", "--batch", "8",
         "--isl", "1024", "--osl", "64", "--framework", "sglang"]
    qj = json.loads(run(*q, "--json").stdout or "{}")
    state = qj.get("state_tokens_per_request", 0)
    check(0 < state < qj.get("kv_tokens", 0), f"simulate: Qwen3.5's state per request in KV tokens: {qj.get('kv_tokens')}, {state}")
    check(f"each request's recurrent state takes {state} of them" in run(*q).stdout,
          "simulate: the KV room line names the state each request takes")
    lj = json.loads(run("simulate", "--arch", "llama3_8b", "--gpu", "h100", "--batch", "8", "--isl", "1024", "--osl",
                        "64", "--json").stdout or "{}")
    check("kv_tokens" in lj and "state_tokens_per_request" not in lj, "simulate: no state line for a KV cache alone")
    # Requests of drawn lengths (InferenceX's --random-range-ratio): said in the load, in JSON
    # only when asked for; the clients fall out of lockstep, so the first tokens wait less.
    base = ["simulate", "--arch", "llama3_8b", "--gpu", "h100", "--batch", "8", "--isl", "1024", "--osl", "128",
            "--framework", "vllm", "--json"]
    fixed = json.loads(run(*base).stdout or "{}")
    drawn = json.loads(run(*base, "--min-length-ratio", "0.8").stdout or "{}")
    check("min_length_ratio" not in fixed.get("load", {}) and drawn.get("load", {}).get("min_length_ratio") == 0.8,
          f"simulate --min-length-ratio in the load JSON: {drawn.get('load')}")
    check(drawn.get("replayed") == 0 and drawn["ttft_ms"]["mean"] < fixed["ttft_ms"]["mean"],
          f"simulate --min-length-ratio: no cycle replayed, less queueing: {drawn.get('ttft_ms')} vs {fixed.get('ttft_ms')}")
    r = run(*base, "--min-length-ratio", "0", expect=2)
    check("min_length_ratio 0 must be in (0, 1]" in r.stderr, f"--min-length-ratio 0: {r.stderr}")
    r = run("validate", "--deployments", str(d / "silicon.csv"), "--config-for", "acme/Nonexistent-7B", expect=2)
    check("expected MODEL=FILE" in r.stderr, f"--config-for without '=': {r.stderr}")
    # Bad input: a cell that is no count names file, line, column and rule; --gpu is refused.
    (d / "bad.csv").write_text(table[0] + "\n" + table[1].replace(",1024,128,", ",1k,128,") + "\n")
    r = run("validate", "--deployments", str(d / "bad.csv"), "--model-configs", str(d / "model_configs"), expect=2)
    check("bad.csv:2:" in r.stderr and "column 'isl': '1k' is not a whole number" in r.stderr,
          f"validate --deployments on a bad cell: {r.stderr}")
    (d / "short.csv").write_text(header.replace(",silicon_tpot_ms", "") + "\n")
    r = run("validate", "--deployments", str(d / "short.csv"), "--model-configs", str(d / "model_configs"), expect=2)
    check("short.csv:1:1: missing column 'silicon_tpot_ms'" in r.stderr, f"missing column: {r.stderr}")
    r = run("validate", "--deployments", str(d / "silicon.csv"), "--gpu", "h100", expect=2)
    check("each deployment names its GPU" in r.stderr, f"--deployments with --gpu: {r.stderr}")

# validate --deployments: a model_path whose organisation has no config.json reads the one
# other organisation's file of that name (zhipuai/GLM-5 is zai-org--GLM-5_config.json); two
# such files are no answer.
with tempfile.TemporaryDirectory() as d:
    d = pathlib.Path(d)
    (d / "model_configs").mkdir()
    (d / "model_configs" / "meta-llama--Llama-3.1-8B-Instruct_config.json").write_text(
        (root / "data/models/llama3_8b.json").read_text())
    header = ("id,backend,backend_version,model_path,system,precision,mode,isl,osl,gemm_quant_mode,moe_quant_mode,"
              "batch_size,tp_size,pp_size,attention_dp_size,moe_tp_size,moe_ep_size,silicon_ttft_ms,silicon_tpot_ms")
    row = "a,trtllm,1.2,old-org/Llama-3.1-8B-Instruct,h100_sxm,bf16,agg,1024,128,bf16,,8,1,1,1,1,1,191,7.5"
    (d / "silicon.csv").write_text(header + "\n" + row + "\n")
    v = json.loads(run("validate", "--deployments", str(d / "silicon.csv"), "--json").stdout or "{}")
    check(v.get("simulated") == 1, f"validate --deployments: a renamed organisation's config.json is found: {v}")
    # A quantized checkpoint published under another name reads its base model's config.json.
    (d / "quant.csv").write_text(header + "\n" + row.replace("old-org/Llama-3.1-8B-Instruct",
                                                            "nvidia/Llama-3.1-8B-Instruct-NVFP4") + "\n" +
                                 row.replace("old-org/Llama-3.1-8B-Instruct", "nvidia/Llama-3.1-8B-Instruct-INT3") + "\n")
    v = json.loads(run("validate", "--deployments", str(d / "quant.csv"), "--json").stdout or "{}")
    check(v.get("simulated") == 1 and any("nvidia--Llama-3.1-8B-Instruct-INT3_config.json: cannot open" in k
                                          for k in v.get("skipped", {})),
          f"validate --deployments: an -NVFP4 checkpoint reads its base model's config, an unknown suffix does not: {v}")
    (d / "model_configs" / "someone--Llama-3.1-8B-Instruct_config.json").write_text(
        (root / "data/models/llama3_8b.json").read_text())
    v = json.loads(run("validate", "--deployments", str(d / "silicon.csv"), "--json").stdout or "{}")
    check(v.get("simulated") == 0 and any("old-org--Llama-3.1-8B-Instruct_config.json: cannot open" in k
                                          for k in v.get("skipped", {})),
          f"validate --deployments: two organisations' files of the name are no answer: {v.get('skipped')}")

# Pictures: eval --svg and sweep --svg/--csv are well-formed and non-trivial.
with tempfile.TemporaryDirectory() as d:
    d = pathlib.Path(d)
    run("eval", "--arch", "llama3_70b", "--tp", "8", "--gpu", "h200", "--prefill", "0:4096", "--decode", "64x2048",
        "--svg", str(d / "eval.svg"), "--bounds")
    run("sweep", "--arch", "llama3_8b", "--gpu", "h200", "--tp", "1,2", "--decode-batch", "1,4,16,64", "--kv", "2048",
        "--csv", str(d / "sweep.csv"), "--svg", str(d / "sweep.svg"))
    r = subprocess.run([sys.executable, check_svg, str(d / "eval.svg"), str(d / "sweep.svg")], capture_output=True,
                       text=True)
    check(r.returncode == 0, "check_svg failed: " + r.stdout + r.stderr)
    rows = (d / "sweep.csv").read_text().strip().splitlines() if (d / "sweep.csv").exists() else []
    check(len(rows) == 1 + 2 * 4, f"sweep.csv should have a header and 8 rows, has {len(rows)}")

checks.finish("cli")
