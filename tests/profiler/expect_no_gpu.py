#!/usr/bin/env python3
"""Runs costdsl-profile with no visible GPU (CUDA_VISIBLE_DEVICES='') and expects exit 77
with one line on stderr; also checks that --help exits 0 and names the options."""
import os
import subprocess
import sys

exe = sys.argv[1]
env = dict(os.environ, CUDA_VISIBLE_DEVICES="")
r = subprocess.run([exe, "--kinds", "rms_norm", "--output", os.devnull + "_unused"], env=env,
                   capture_output=True, text=True, timeout=120)
if r.returncode != 77:
    sys.exit(f"expected exit 77 without a GPU, got {r.returncode}\nstdout: {r.stdout}\nstderr: {r.stderr}")
lines = [l for l in r.stderr.splitlines() if l.strip()]
if len(lines) != 1 or "no usable CUDA GPU" not in lines[0]:
    sys.exit(f"expected one line naming the missing GPU on stderr, got: {r.stderr!r}")
if r.stdout.strip():
    sys.exit(f"expected nothing on stdout, got: {r.stdout!r}")

h = subprocess.run([exe, "--help"], capture_output=True, text=True, timeout=60)
if h.returncode != 0:
    sys.exit(f"--help exited {h.returncode}: {h.stderr}")
for opt in ("--kinds", "--models", "--tp", "--output", "--reps", "--gemm-algos", "--plan"):
    if opt not in h.stdout:
        sys.exit(f"--help does not mention {opt}")
print("ok:", lines[0])
