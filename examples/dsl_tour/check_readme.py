#!/usr/bin/env python3
"""The README's DSL tour is the code between the '// [tour]' markers of tour.cpp, verbatim."""
import pathlib
import sys

readme, tour = (pathlib.Path(p).read_text(encoding="utf-8") for p in sys.argv[1:3])
parts = tour.split("// [tour]\n")
if len(parts) != 3:
    sys.exit(f"{sys.argv[2]}: expected two '// [tour]' marker lines, found {len(parts) - 1}")
snippet = "```cpp\n" + parts[1] + "```\n"
if snippet not in readme:
    sys.exit(f"{sys.argv[1]}: the DSL tour differs from {sys.argv[2]} between its markers; paste it again:\n{snippet}")
print("README tour == examples/dsl_tour/tour.cpp")
