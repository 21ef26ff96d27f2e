#!/usr/bin/env python3
"""A compile-fail test: FILE must fail to compile with EXPECTED in the diagnostics,
and the same FILE with -DCOSTDSL_CONTROL (its correct twin) must compile.

usage: run.py CXX INCLUDE_DIR FILE EXPECTED [EXPECTED...]
"""
import subprocess
import sys

cxx, include, source, *expected = sys.argv[1:]
base = [cxx, "-std=c++20", "-fsyntax-only", f"-I{include}", source]

control = subprocess.run(base + ["-DCOSTDSL_CONTROL"], capture_output=True, text=True)
if control.returncode != 0:
    print("FAIL: the control (correct twin) does not compile:\n" + control.stderr[:6000])
    sys.exit(1)

bad = subprocess.run(base, capture_output=True, text=True)
if bad.returncode == 0:
    print("FAIL: the file compiled, but it must not")
    sys.exit(1)
missing = [e for e in expected if e not in bad.stderr]
if missing:
    print(f"FAIL: the diagnostics lack {missing!r}:\n" + bad.stderr[:6000])
    sys.exit(1)
error_lines = [line for line in bad.stderr.splitlines() if "error:" in line]
noise = [line for line in error_lines if "costdsl:" not in line]
print(f"ok: failed as expected with {len(error_lines)} error(s); found {expected!r}")
# Each error must be one of costdsl's own diagnostics (one per broken rule): no
# cascade of template-internal errors after it.
if noise:
    print("FAIL: errors other than costdsl's diagnostics follow:\n" + "\n".join(noise[:10]))
    sys.exit(1)
