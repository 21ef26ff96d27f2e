#!/usr/bin/env python3
"""The Python module's cost over the C call it wraps (issue 38's targets: <= 3 us per
iteration call over the C++ call, `import costdsl` <= 100 ms). Run from the repository
root after a build:

    PYTHONPATH=build/python /usr/bin/python3 bench/python_overhead.py build/bench/costdsl-bench-capi

It times `import costdsl` in fresh interpreters (median of 7), then Model.time, Predictor
and Model.iteration on Llama-3-70B TP 8 on H100 (one 4096-token prefill chunk, 64 decodes
at KV 1024: bench_capi.cpp's batch), and runs the C benchmark for the same calls."""
import json
import statistics
import subprocess
import sys
import time

capi_bench = sys.argv[1] if len(sys.argv) > 1 else None

imports = []
for _ in range(7):
    out = subprocess.run([sys.executable, "-c", "import time; t = time.perf_counter(); import costdsl; "
                          "print(time.perf_counter() - t)"], capture_output=True, text=True, check=True)
    imports.append(float(out.stdout))
print(f"import costdsl: {statistics.median(imports) * 1e3:.1f} ms (median of 7)")

import costdsl  # noqa: E402

m = costdsl.Model(arch="llama3_70b", gpu="h100", tp=8)
prefill, decode = [(0, 4096)], [1024] * 64
predict = m.predictor()
calls = {"Model.time": lambda: m.time(prefill, decode), "Predictor": lambda: predict(prefill=prefill, decode=decode),
         "Model.iteration": lambda: m.iteration(prefill, decode)}
python_ns = {}
for name, f in calls.items():
    runs = []
    for _ in range(5):
        n = 20000
        t = time.perf_counter()
        for _ in range(n):
            f()
        runs.append((time.perf_counter() - t) / n * 1e9)
    python_ns[name] = min(runs)
    print(f"{name}: {python_ns[name]:.0f} ns per call (best of 5 x 20000)")

if capi_bench:
    out = subprocess.run([capi_bench, "--benchmark_format=json", "--benchmark_min_time=0.5"], capture_output=True,
                         text=True, check=True)
    c = {b["name"]: b["real_time"] for b in json.loads(out.stdout)["benchmarks"]}
    ct, ci = c["capi/model_time/llama3_70b_tp8"], c["capi/model_iteration/llama3_70b_tp8"]
    print(f"C costdsl_model_time: {ct:.0f} ns, costdsl_model_iteration: {ci:.0f} ns")
    print(f"Python over C: Model.time +{python_ns['Model.time'] - ct:.0f} ns, Predictor "
          f"+{python_ns['Predictor'] - ct:.0f} ns, Model.iteration +{python_ns['Model.iteration'] - ci:.0f} ns")
