"""helix_pareto's claims, checked on its own output: every front row is a real point of the
sweep (TTL and tokens/s consistent), the front is sorted and non-dominated, and at 1M
tokens on 64 GB200 KV parallelism lowers latency and raises concurrency (what Helix claims
and docs/helix.md reports); at 4k tokens on 8 GPUs it cannot help (KV is small: hp has
nothing to split worth the exchange), so it must not come out ahead on latency."""
import re
import subprocess
import sys


def run(exe, args):
    r = subprocess.run([exe, *args], capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit(f"helix_pareto {args}: exit {r.returncode}: {r.stderr[-500:]}")
    return r.stdout


def parse(out):
    rows = []
    for line in out.splitlines():
        m = re.match(r"\| (.+?) \| (\d+) \| (\d+) \| (\d+) \| ([\d.]+) \| ([\d.]+) \| ([\d.]+) \|$", line)
        if m:
            rows.append((m.group(1), int(m.group(2)), int(m.group(3)), int(m.group(4)), float(m.group(5)),
                         float(m.group(6)), float(m.group(7))))
    gains = re.search(r"up to ([\d.]+)x lower with hp.*\n.*up to ([\d.]+)x more with hp", out)
    return rows, (float(gains.group(1)), float(gains.group(2))) if gains else None


def check(out, errors, what):
    rows, gains = parse(out)
    if not rows or gains is None:
        errors.append(f"{what}: no front or no comparison in the output")
        return None
    for name, replicas, batch, users, ttl_ms, per_user, per_gpu in rows:
        if users != replicas * batch:
            errors.append(f"{what}: {name}: users {users} != replicas × batch")
        if abs(per_user - 1e3 / ttl_ms) > 0.06 * per_user + 0.1:
            errors.append(f"{what}: {name}: tokens/s/user {per_user} is not 1 / TTL {ttl_ms} ms")
    for a, b in zip(rows, rows[1:]):
        if not (a[5] >= b[5] and a[6] <= b[6]):
            errors.append(f"{what}: front not sorted and non-dominated at {a[0]} / {b[0]}")
    return gains


def main():
    exe = sys.argv[1]
    errors = []
    long_ctx = check(run(exe, []), errors, "1M tokens, 64 GB200")
    if long_ctx and not (long_ctx[0] > 1 and long_ctx[1] > 1):
        errors.append(f"1M tokens: hp should win on latency and users, got {long_ctx}")
    short = check(run(exe, ["--model", "llama3_70b", "--gpus", "8", "--context", "4096", "--gpu", "h200"]), errors,
                  "4k tokens, 8 H200")
    if short and short[0] > 1.0:
        errors.append(f"4k tokens on 8 GPUs: hp should not lower latency, got {short[0]}x")
    for e in errors:
        print("FAIL", e)
    print(f"1M tokens: {long_ctx}; 4k tokens: {short}; {len(errors)} failure(s)")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
