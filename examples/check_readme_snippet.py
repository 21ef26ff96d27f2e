#!/usr/bin/env python3
"""README.md shows, verbatim in a ```LANG block, the code of FILE between its two MARKER
lines: `check_readme_snippet.py README FILE MARKER LANG`."""
import pathlib
import sys

readme_path, code_path, marker, lang = sys.argv[1:5]
readme = pathlib.Path(readme_path).read_text(encoding="utf-8")
parts = pathlib.Path(code_path).read_text(encoding="utf-8").split(marker + "\n")
if len(parts) != 3:
    sys.exit(f"{code_path}: expected two '{marker}' marker lines, found {len(parts) - 1}")
snippet = f"```{lang}\n" + parts[1] + "```\n"
if snippet not in readme:
    sys.exit(f"{readme_path}: the snippet differs from {code_path} between its markers; paste it again:\n{snippet}")
print(f"README snippet == {code_path}")
