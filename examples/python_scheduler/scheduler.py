#!/usr/bin/env python3
"""The README's "From Python" section: a serving simulator's scheduler loop in Python,
with costdsl answering how long each iteration takes (the code between the [from-python]
markers, run by the suite: examples/python_scheduler/meson.build)."""
import sys

# [from-python]
import costdsl

model = costdsl.Model(arch="llama3_8b", gpu="h100", tp=1)
predict = model.predictor()  # seconds for one batch: predict(prefill=[(cached, new)], decode=[kv])

# 16 requests of 1024 prompt tokens and 64 output tokens, all waiting at t = 0; a
# continuous-batching loop: each iteration takes up to 2048 prompt tokens (chunked
# prefill) and every running request's next token.
waiting = [{"id": i, "prompt": 1024, "done": 0, "out": 0} for i in range(16)]
running, clock, ttft, budget = [], 0.0, {}, 2048
while waiting or running:
    chunks, decodes, left = [], [], budget
    for r in running:
        decodes.append(r["prompt"] + r["out"])  # KV length this decode attends to
    for r in list(waiting):
        take = min(left, r["prompt"] - r["done"])
        if take == 0:
            break
        chunks.append((r["done"], take))
        r["done"] += take
        left -= take
        if r["done"] == r["prompt"]:  # the prompt is in: its first token comes out now
            waiting.remove(r)
            running.append(r)
    clock += predict(prefill=chunks, decode=decodes)
    for r in running:
        if r["id"] not in ttft:  # its prompt finished in this iteration
            ttft[r["id"]] = clock
        r["out"] += 1
    running = [r for r in running if r["out"] < 64]

print(f"16 requests served in {clock * 1e3:.1f} ms; mean TTFT {sum(ttft.values()) / 16 * 1e3:.1f} ms")
# [from-python]
sys.exit(0 if clock > 0 and len(ttft) == 16 else 1)
