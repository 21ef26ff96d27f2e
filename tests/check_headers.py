#!/usr/bin/env python3
"""Compiles every public header alone (-fsyntax-only): each must include what it uses."""
import concurrent.futures
import os
import pathlib
import subprocess
import sys

root = pathlib.Path(sys.argv[1])
cxx = sys.argv[2] if len(sys.argv) > 2 else "g++"
include = root / "include"
# Walk through the layer links (costdsl/kernels -> ../../kernels, ...) as well.
headers = sorted(pathlib.Path(d) / f for d, _, files in os.walk(include / "costdsl", followlinks=True)
                 for f in files if f.endswith(".hpp") and "detail" not in pathlib.Path(d).parts)


def check(header: pathlib.Path):
    rel = header.relative_to(include).as_posix()
    src = f'#include "{rel}"\n#include "{rel}"\nint main() {{}}\n'  # twice: include guards hold too
    r = subprocess.run([cxx, "-std=c++20", "-fsyntax-only", "-Wall", "-Wextra", "-Wpedantic", "-Werror",
                        f"-I{include}", "-x", "c++", "-"], input=src, capture_output=True, text=True)
    return rel, r.returncode, r.stderr


failed = 0
with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
    for rel, rc, err in pool.map(check, headers):
        print(("ok   " if rc == 0 else "FAIL ") + rel)
        if rc != 0:
            failed += 1
            print(err[:4000])
print(f"{len(headers) - failed} of {len(headers)} headers compile on their own")
sys.exit(1 if failed or not headers else 0)
