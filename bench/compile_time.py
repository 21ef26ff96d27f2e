#!/usr/bin/env python3
"""Compile time and peak memory of the translation units in bench/compile_time/.

  compile_time.py table [--cxx CXX] [--repeat N]
      the Markdown table of bench/README.md: -fsyntax-only (front end), -O0 and -O2,
      CPU seconds (user + sys, the minimum of N runs: wall time on a shared machine
      measures the neighbours) and peak MiB.
  compile_time.py record CXX INCLUDE_DIR SOURCE RESULT DEPFILE
      one -O2 compile, as a build step: CPU seconds to RESULT, headers to DEPFILE.
  compile_time.py check BUDGET_JSON RESULT...
      fails when a recorded time exceeds 1.3 x its figure in BUDGET_JSON.
"""
import json
import os
import pathlib
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
TUS = ROOT / "bench" / "compile_time"
MARGIN = 1.3


def compile_once(cxx, include, source, flags, extra=()):
    """CPU seconds and peak MiB of one compiler run. wait4 gives this run's own rusage
    (the driver and the cc1plus it waited for); RUSAGE_CHILDREN's maxrss would be the
    largest of every compile so far."""
    with tempfile.TemporaryDirectory() as tmp:
        out = ["-fsyntax-only"] if "-fsyntax-only" in flags else ["-c", "-o", str(pathlib.Path(tmp) / "tu.o")]
        cmd = [cxx, "-std=c++20", *[f for f in flags if f != "-fsyntax-only"], *out, f"-I{include}", *extra,
               str(source)]
        with open(pathlib.Path(tmp) / "stderr", "w+") as err:
            proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=err)
            _, status, usage = os.wait4(proc.pid, 0)
            proc.returncode = os.waitstatus_to_exitcode(status)
            err.seek(0)
            stderr = err.read()
    if proc.returncode != 0:
        sys.exit(f"{source.name} does not compile:\n{stderr[:4000]}")
    return usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024  # ru_maxrss in KiB


def table(cxx, repeat):
    levels = [("front end", ["-fsyntax-only"]), ("-O0", ["-O0"]), ("-O2", ["-O2"])]
    print("| translation unit | " + " | ".join(f"{name} s" for name, _ in levels) + " | -O2 peak MiB |")
    print("|---|" + "---|" * (len(levels) + 1))
    for source in sorted(TUS.glob("*.cpp")):
        cells, peak = [], 0.0
        for _, flags in levels:
            runs = [compile_once(cxx, ROOT / "include", source, flags) for _ in range(repeat)]
            cells.append(f"{min(t for t, _ in runs):.2f}")
            peak = runs[-1][1]
        print(f"| {source.stem} | " + " | ".join(cells) + f" | {peak:.0f} |")


def record(cxx, include, source, result, depfile):
    source = pathlib.Path(source)
    secs, mib = compile_once(cxx, include, source, ["-O2"], ["-MD", "-MF", depfile, "-MT", result])
    pathlib.Path(result).write_text(json.dumps({"tu": source.stem, "cpu_s": round(secs, 2), "peak_mib": round(mib),
                                                "cxx": cxx, "include": str(include), "source": str(source)}))


def check(budget_file, results):
    budget = json.loads(pathlib.Path(budget_file).read_text())
    over = []
    for r in results:
        got = json.loads(pathlib.Path(r).read_text())
        name = got["tu"]
        if name not in budget:
            over.append(f"{name}: no figure in {budget_file}")
            continue
        limit = MARGIN * budget[name]
        if got["cpu_s"] > limit:
            # The build measured it next to other compiles: measure again alone (this test
            # is not run in parallel), the better of two, before calling it a regression.
            again = [compile_once(got["cxx"], got["include"], pathlib.Path(got["source"]), ["-O2"]) for _ in range(2)]
            got["cpu_s"], got["peak_mib"] = min(t for t, _ in again), round(again[-1][1])
        verdict = "ok" if got["cpu_s"] <= limit else "OVER"
        print(f"{verdict:4} {name}: {got['cpu_s']:.2f} s at -O2 (budget {budget[name]} s x {MARGIN} = {limit:.2f} s), "
              f"{got['peak_mib']} MiB")
        if verdict != "ok":
            over.append(name)
    if over:
        print("over budget: " + ", ".join(over) + " (bench/README.md: measure with compile_time.py table)")
        sys.exit(1)


if __name__ == "__main__":
    args = sys.argv[1:]
    if not args:
        sys.exit(__doc__)
    if args[0] == "table":
        cxx = args[args.index("--cxx") + 1] if "--cxx" in args else "g++"
        repeat = int(args[args.index("--repeat") + 1]) if "--repeat" in args else 1
        table(cxx, repeat)
    elif args[0] == "record" and len(args) == 6:
        record(*args[1:])
    elif args[0] == "check" and len(args) >= 3:
        check(args[1], args[2:])
    else:
        sys.exit(__doc__)
