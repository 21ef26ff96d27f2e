#!/usr/bin/env python3
"""`mpirun -n 2 costdsl plan ...` gives the single-process output byte for byte (stdout,
the CSV and the SVG), and both ranks really ran part of the search.

usage: check_plan_mpi.py COSTDSL with-mpi|without-mpi MPIRUN
Exits 77 (meson: skipped) when costdsl was built without MPI or mpirun is missing.
"""
import os
import pathlib
import subprocess
import sys
import tempfile

costdsl, built, mpirun = sys.argv[1], sys.argv[2], sys.argv[3] if len(sys.argv) > 3 else ""
if built != "with-mpi" or not mpirun:
    print("SKIP: costdsl was built without MPI (meson -Dmpi=enabled needs libopenmpi-dev) or mpirun is missing")
    sys.exit(77)

failures = []
PLAN = ["plan", "--arch", "llama3_8b", "--gpu", "h200", "--gpus", "4", "--isl", "2000", "--osl", "100",
        "--ttft", "400", "--tpot", "15"]
launcher = [mpirun, "-n", "2", "--oversubscribe"]
if hasattr(os, "geteuid") and os.geteuid() == 0:
    launcher.append("--allow-run-as-root")  # Open MPI refuses root without it (CI containers run as root)
# One node: the isolated launcher needs no ssh/rsh (a CI container may have neither, and
# Open MPI's default launcher refuses to start without one even for local ranks).
env = dict(os.environ, OMPI_MCA_btl="self,vader", OMPI_MCA_plm="isolated")

with tempfile.TemporaryDirectory() as d:
    d = pathlib.Path(d)
    outputs = {}
    for name, prefix in (("single", []), ("mpi", launcher)):
        for extra in ([], ["--json"]):
            args = [*prefix, costdsl, *PLAN, *extra, "--csv", str(d / f"{name}.csv"), "--svg", str(d / f"{name}.svg")]
            r = subprocess.run(args, capture_output=True, timeout=240, env=env)
            if r.returncode != 0:
                failures.append(f"{' '.join(args)}: exit {r.returncode}\n{r.stdout[-1500:]!r}\n{r.stderr[-1500:]!r}")
            outputs[(name, tuple(extra))] = r
    for extra in ((), ("--json",)):
        a, b = outputs[("single", extra)], outputs[("mpi", extra)]
        if a.stdout != b.stdout:
            failures.append(f"stdout {extra} differs between 1 process and mpirun -n 2:\n--- single\n"
                            f"{a.stdout.decode()[:1500]}\n--- mpi\n{b.stdout.decode()[:1500]}")
        if not a.stdout:
            failures.append(f"no output {extra}")
    for ext in ("csv", "svg"):
        s, m = d / f"single.{ext}", d / f"mpi.{ext}"
        if not s.exists() or not m.exists() or s.read_bytes() != m.read_bytes():
            failures.append(f"the {ext} files differ between 1 process and mpirun -n 2")
    err = outputs[("mpi", ())].stderr.decode()
    for rank in (0, 1):
        if f"plan: rank {rank} of 2 ran" not in err:
            failures.append(f"rank {rank} did not report its share of the search: {err[-1500:]}")

for f in failures:
    print("FAIL:", f)
print(f"plan mpi: {len(failures)} failure(s)")
sys.exit(1 if failures else 0)
