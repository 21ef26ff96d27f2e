#!/usr/bin/env python3
"""Compile time and peak memory of the translation units in bench/compile_time/.

  compile_time.py table [--cxx CXX] [--repeat N]
      the Markdown table of bench/README.md: -fsyntax-only (front end), -O0 and -O2,
      CPU seconds (user + sys, the minimum of N runs: wall time on a shared machine
      measures the neighbours) and peak MiB.
  compile_time.py record CXX INCLUDE_DIR SOURCE RESULT DEPFILE
      one -O2 compile, as a build step: CPU seconds to RESULT, headers to DEPFILE.
  compile_time.py check BUDGET_JSON RESULT...
      fails when a TU's time, as a ratio to the yardstick's (yardstick.cpp, costdsl-free
      C++ compiled in the same build), exceeds 1.3 x its ratio in BUDGET_JSON. Ratios
      carry across boxes: a slow or busy machine slows the yardstick alike, so the check
      fails a real 1.3x regression on any box and passes no box by its speed alone.
  compile_time.py ratios [--cxx CXX] [--repeat N]
      the ratios of BUDGET_JSON measured on this box (minimum of N runs each).
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


YARDSTICK = "yardstick"


def min_o2(cxx, include, source, repeat):
    """The least CPU seconds (and its peak MiB) of REPEAT -O2 compiles."""
    runs = [compile_once(cxx, include, pathlib.Path(source), ["-O2"]) for _ in range(repeat)]
    return min(runs)


def check(budget_file, results):
    budget = json.loads(pathlib.Path(budget_file).read_text())
    got = {}
    for r in results:
        g = json.loads(pathlib.Path(r).read_text())
        got[g["tu"]] = g
    if YARDSTICK not in got:
        sys.exit(f"no {YARDSTICK} result among {sorted(got)}: the ratios need it")
    unknown = sorted(set(got) - set(budget) - {YARDSTICK})
    if unknown:
        sys.exit(f"no ratio in {budget_file} for {', '.join(unknown)} (compile_time.py ratios measures them)")
    missing = sorted(set(budget) - set(got))
    if missing:
        sys.exit(f"{budget_file} names {', '.join(missing)}, which the build did not measure")
    yard = got[YARDSTICK]
    yard_s = yard["cpu_s"]
    over = []
    for name in sorted(set(got) - {YARDSTICK}):
        g = got[name]
        limit = MARGIN * budget[name]
        ratio = g["cpu_s"] / yard_s
        if ratio > limit:
            # The build measured both next to other compiles, which load them unequally, and
            # a box's speed drifts between two compiles minutes apart: measure the pair again
            # alone (this test is not run in parallel), in turn three times as `ratios` does,
            # the best of each.
            for _ in range(3):
                yard_s = min(yard_s, min_o2(yard["cxx"], yard["include"], yard["source"], 1)[0])
                cpu_s, peak = min_o2(g["cxx"], g["include"], g["source"], 1)
                if cpu_s < g["cpu_s"]:
                    g["cpu_s"], g["peak_mib"] = cpu_s, round(peak)
            ratio = g["cpu_s"] / yard_s
        verdict = "ok" if ratio <= limit else "OVER"
        print(f"{verdict:4} {name}: {g['cpu_s']:.2f} s at -O2 = {ratio:.2f} x the yardstick's {yard_s:.2f} s "
              f"(budget {budget[name]} x {MARGIN} = {limit:.2f}), {g['peak_mib']} MiB")
        if verdict != "ok":
            over.append(name)
    if over:
        print("over budget: " + ", ".join(over) + " (measure the ratios alone with compile_time.py ratios)")
        sys.exit(1)


def ratios(cxx, repeat):
    """Each budgeted TU's -O2 time over the yardstick's, as compile_time_budget.json holds
    them: the yardstick and the TU compiled in turn REPEAT times (so a change in the box's
    load falls on both), the minimum of each."""
    budget = json.loads((ROOT / "bench" / "compile_time_budget.json").read_text())
    out, yard_runs = {}, []
    for name in budget:
        tu_runs = []
        for _ in range(repeat):
            yard_runs.append(min_o2(cxx, ROOT / "include", TUS / f"{YARDSTICK}.cpp", 1)[0])
            tu_runs.append(min_o2(cxx, ROOT / "include", TUS / f"{name}.cpp", 1)[0])
        out[name] = round(min(tu_runs) / min(yard_runs), 2)
    print(json.dumps(out, indent=2))
    print(f"(yardstick {min(yard_runs):.2f} s at -O2, {cxx})", file=sys.stderr)


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
    elif args[0] == "ratios":
        cxx = args[args.index("--cxx") + 1] if "--cxx" in args else "g++"
        repeat = int(args[args.index("--repeat") + 1]) if "--repeat" in args else 2
        ratios(cxx, repeat)
    else:
        sys.exit(__doc__)
