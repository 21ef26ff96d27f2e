#!/usr/bin/env bash
# Compile time and peak memory of each translation unit in bench/compile_time/ (the
# arch TUs, the core-only TU, the header-only one-TU program): bench/README.md's table.
#   usage: bench/compile_time.sh [CXX] [REPEAT]
# CPU seconds (user + sys), the minimum of REPEAT runs (default 3).
exec python3 "$(dirname "$0")/compile_time.py" table --cxx "${1:-g++}" --repeat "${2:-3}"
