"""What the CLI test scripts share: running costdsl, collecting failures instead of
stopping at the first, checking that a JSON answer holds no NaN or inf, and the exit.

    from cli_checks import Checks
    t = Checks(costdsl)
    t.run("plan", ..., expect=0); t.check(cond, "what failed"); t.finite_everywhere(json)
    t.finish("plan cli")
"""
import math
import subprocess
import sys


class Checks:
    def __init__(self, costdsl):
        self.costdsl = costdsl
        self.failures = []

    def run(self, *args, expect=0, env=None):
        r = subprocess.run([self.costdsl, *args], capture_output=True, text=True, env=env)
        if r.returncode != expect:
            self.failures.append(f"{' '.join(args)}: exit {r.returncode}, expected {expect}\n"
                                 f"{r.stdout[-2000:]}{r.stderr[-2000:]}")
        return r

    def check(self, cond, what):
        if not cond:
            self.failures.append(what)

    def finite_everywhere(self, value, path="$"):
        """Every number in a JSON value is finite (json.loads accepts NaN and Infinity)."""
        if isinstance(value, float):
            self.check(math.isfinite(value), f"{path} is {value}")
        elif isinstance(value, dict):
            for k, v in value.items():
                self.finite_everywhere(v, f"{path}.{k}")
        elif isinstance(value, list):
            for i, v in enumerate(value):
                self.finite_everywhere(v, f"{path}[{i}]")

    def finish(self, name):
        for f in self.failures:
            print("FAIL:", f)
        print(f"{name}: {len(self.failures)} failure(s)")
        sys.exit(1 if self.failures else 0)
