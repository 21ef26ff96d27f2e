#!/usr/bin/env python3
"""The evaluation headers (costdsl/core.hpp and everything under kernels/, ops/,
worklets/ and archs/) must not reach loading or reporting code: no nlohmann-json, no
fmt, no <filesystem> or <fstream>, no profile CSV parser, no impl/ definitions. Their
parse cost would land in every translation unit that includes a model. The serving
engine (serve/) is held to the same rule, except its one loader: serve/trace.hpp reads
a trace file.

usage: check_light.py CXX INCLUDE_DIR
"""
import concurrent.futures
import pathlib
import subprocess
import sys

cxx, include = sys.argv[1], pathlib.Path(sys.argv[2])
lister = include.parent / "scripts" / "list_headers.py"
headers = subprocess.run([sys.executable, str(lister), str(include.parent)], capture_output=True, text=True,
                         check=True).stdout.split()
LOADERS = {"costdsl/serve/trace.hpp"}
evaluation = [h for h in headers
              if h == "costdsl/core.hpp"
              or (h.split("/")[1] in ("kernels", "ops", "worklets", "archs", "serve") and h not in LOADERS)]
FORBIDDEN = {"nlohmann/": "nlohmann-json", "/fmt/": "fmt", "c++/12/filesystem": "<filesystem>",
             "c++/12/fstream": "<fstream>", "costdsl/profile_csv.hpp": "the profile CSV parser",
             "costdsl/impl/": "a loader's definitions (impl/)"}


def deps(header: str):
    r = subprocess.run([cxx, "-std=c++20", "-M", f"-I{include}", "-x", "c++", "-"], input=f'#include "{header}"\n',
                       capture_output=True, text=True)
    if r.returncode != 0:
        return header, None, r.stderr
    return header, r.stdout.replace("\\\n", " ").split(), ""


failed = 0
with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
    for header, files, err in pool.map(deps, evaluation):
        if files is None:
            print(f"FAIL {header}: does not preprocess:\n{err[:2000]}")
            failed += 1
            continue
        bad = sorted({what for f in files for key, what in FORBIDDEN.items() if key in f})
        if bad:
            failed += 1
            print(f"FAIL {header} reaches {', '.join(bad)}")
print(f"{len(evaluation) - failed} of {len(evaluation)} evaluation headers are light")
sys.exit(1 if failed or not evaluation else 0)
