#!/usr/bin/env python3
"""The header checks were generated at configure time from the list of public headers
(tests/headers/meson.build); a header added since would go unchecked. This compares
that list with the headers on disk now.

usage: check_list.py SOURCE_ROOT HEADER...
"""
import pathlib
import subprocess
import sys

root, *configured = sys.argv[1:]
lister = pathlib.Path(root) / "scripts" / "list_headers.py"
now = subprocess.run([sys.executable, str(lister), root], capture_output=True, text=True, check=True).stdout.split()
added, removed = sorted(set(now) - set(configured)), sorted(set(configured) - set(now))
if added or removed:
    print(f"the header list changed since configure (added {added}, removed {removed}): "
          "run `meson setup --reconfigure build`")
    sys.exit(1)
print(f"{len(now)} public headers, each compiled alone by the build (target header_checks)")
