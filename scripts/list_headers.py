#!/usr/bin/env python3
"""Prints costdsl's public headers, one per line, as users include them
("costdsl/archs/llama3.hpp"): every .hpp under include/costdsl (through the layer
links) except detail/ and impl/.

usage: list_headers.py SOURCE_ROOT
"""
import os
import pathlib
import sys

include = pathlib.Path(sys.argv[1]) / "include"
headers = sorted(
    (pathlib.Path(d) / f).relative_to(include).as_posix()
    for d, _, files in os.walk(include / "costdsl", followlinks=True)
    for f in files
    if f.endswith(".hpp") and not {"detail", "impl"} & set(pathlib.Path(d).relative_to(include).parts))
print("\n".join(headers))
