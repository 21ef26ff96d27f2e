#!/usr/bin/env python3
"""Compile-fail cases as build steps, so ninja reruns one only when its sources change.

record: FILE must fail to compile with every EXPECTED text in the diagnostics, each
error must be one of costdsl's own diagnostics (no cascade of template internals), and
the same FILE with -DCOSTDSL_CONTROL (its correct twin) must compile. The verdict goes
to RESULT ("ok ..." or "FAIL ..."), the control's header dependencies to DEPFILE; the
step itself always succeeds, so that a broken case shows up as a failed test.

check: prints RESULT and exits 1 unless its verdict is ok (the meson test).

usage: run.py record RESULT DEPFILE CXX INCLUDE_DIR FILE EXPECTED [EXPECTED...]
       run.py check RESULT
"""
import pathlib
import subprocess
import sys


def record(result: str, depfile: str, cxx: str, include: str, source: str, expected: list[str]) -> str:
    base = [cxx, "-std=c++20", "-fsyntax-only", f"-I{include}", source]
    control = subprocess.run(base + ["-DCOSTDSL_CONTROL", "-MD", "-MF", depfile, "-MT", result],
                             capture_output=True, text=True)
    if control.returncode != 0:
        return "FAIL: the control (correct twin) does not compile:\n" + control.stderr[:6000]
    bad = subprocess.run(base, capture_output=True, text=True)
    if bad.returncode == 0:
        return "FAIL: the file compiled, but it must not"
    missing = [e for e in expected if e not in bad.stderr]
    if missing:
        return f"FAIL: the diagnostics lack {missing!r}:\n" + bad.stderr[:6000]
    error_lines = [line for line in bad.stderr.splitlines() if "error:" in line]
    noise = [line for line in error_lines if "costdsl:" not in line]
    if noise:
        return "FAIL: errors other than costdsl's diagnostics follow:\n" + "\n".join(noise[:10])
    return f"ok: failed as expected with {len(error_lines)} error(s); found {expected!r}"


if sys.argv[1] == "record":
    result, depfile, cxx, include, source, *expected = sys.argv[2:]
    pathlib.Path(result).write_text(record(result, depfile, cxx, include, source, expected) + "\n")
elif sys.argv[1] == "check":
    verdict = pathlib.Path(sys.argv[2]).read_text()
    print(verdict, end="")
    sys.exit(0 if verdict.startswith("ok") else 1)
else:
    sys.exit(__doc__)
