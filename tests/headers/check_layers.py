#!/usr/bin/env python3
"""The layers include downwards only, read from the #include lines themselves: the core
(include/costdsl/*.hpp but the umbrella costdsl.hpp, and its detail/, impl/, interp/, c/)
includes nothing of worklets/, archs/ or serve/ (it defines what the layers are, and the
concepts ask an arch for its input types rather than naming archs/ types); L1 kernels/
nothing of ops/ and above, L2 ops/ nothing of worklets/ and above, L3 worklets/ nothing of
archs/ or serve/, and no other worklet (what they share lives in ops/ or worklets/detail/),
L4 archs/ nothing of serve/.

usage: check_layers.py SOURCE_ROOT
"""
import pathlib
import re
import sys

root = pathlib.Path(sys.argv[1])
INCLUDE = re.compile(r'^\s*#\s*include\s+"costdsl/([^"]+)"', re.M)
ABOVE = {"core": ("archs/", "worklets/", "serve/"), "kernels": ("ops/", "worklets/", "archs/", "serve/"),
         "ops": ("worklets/", "archs/", "serve/"), "worklets": ("archs/", "serve/"), "archs": ("serve/",)}


def files(layer):
    if layer == "core":
        base = root / "include" / "costdsl"
        out = [p for p in base.glob("*.hpp") if p.name != "costdsl.hpp"]
        for sub in ("detail", "impl", "interp", "c"):
            out += [p for p in (base / sub).rglob("*") if p.suffix in (".hpp", ".h") and p.is_file()]
        return [(p, p.relative_to(base).as_posix()) for p in out]
    return [(p, p.relative_to(root).as_posix()) for p in (root / layer).rglob("*.hpp")]


failed, checked = [], 0
for layer, forbidden in ABOVE.items():
    for path, name in files(layer):
        checked += 1
        for inc in INCLUDE.findall(path.read_text()):
            if inc.startswith(forbidden):
                failed.append(f"{name} (layer {layer}) includes costdsl/{inc}, a layer above it")
            elif layer == "worklets" and inc.startswith("worklets/") and not inc.startswith("worklets/detail/") \
                    and not name.startswith("worklets/detail/") and inc != name:
                failed.append(f"{name} includes costdsl/{inc}: a worklet includes no other worklet "
                              "(move what they share to ops/ or worklets/detail/)")
for f in failed:
    print("FAIL", f)
print(f"{checked} headers checked, {len(failed)} layering violation(s)")
sys.exit(1 if failed or checked == 0 else 0)
