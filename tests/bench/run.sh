#!/bin/sh
# run.sh — the benchmark in one command: builds BUILD_DIR (default
# build-bench, release; never the developers' build/), then measures lagrangec
# against SymPy, MuJoCo and Simbody and writes BENCHMARKS.md. Options after BUILD_DIR
# go to bench.py (--quick, --keep, --only SECTION,...).
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
case "${1:-}" in
    "" | --*) build=$root/build-bench ;;
    *) build=$1; shift ;;
esac
[ -d "$build" ] || meson setup "$build" "$root" --buildtype=release
# -j1: the machine is shared. Only what the benchmark runs: the generator and the runtime.
ninja -C "$build" -j1 gen/lagrangec runtime/liblagrangec.a runtime/liblagrangec.so.0.1.0
exec /usr/bin/python3 -B "$root/tests/bench/bench.py" "$build" "$@"
