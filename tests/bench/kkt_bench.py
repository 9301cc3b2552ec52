"""kkt_bench.py — from which size the LAPACK/OpenBLAS KKT solve beats the generated fixed-size loops (kkt_bench.c)."""
import os
import subprocess
import sys

import measure

HERE = os.path.dirname(os.path.abspath(__file__))
# One BLAS thread: the runtime steps one model per thread, and this machine is shared.
ENV = dict(os.environ, OPENBLAS_NUM_THREADS="1")


def blas_flags():
    return subprocess.run(["pkg-config", "--cflags", "--libs", "lapacke", "openblas"],
                          capture_output=True, text=True, check=True).stdout.split()


def case(work, nq, nc):
    exe = f"{work}/kkt_{nq}_{nc}"
    measure.output([os.environ.get("CC", "cc"), "-std=c11", "-O2", f"-DNQ={nq}", f"-DNC={nc}",
                    f"{HERE}/kkt_bench.c"] + blas_flags() + ["-lm", "-o", exe])
    row = {"nq": nq, "nc": nc, "max_diff": float(measure.output([exe, "check"], env=ENV))}
    calls = 3 if nq >= 100 else 20
    for path in ("loop", "lapack"):
        row[path] = {"ns": float(measure.output([exe, path, "ns"], env=ENV)),
                     "ir": measure.callgrind_ir([exe, path, "calls", str(calls)], "solve_once", env=ENV) / calls}
    print(f"kkt n={nq} m={nc}: loop {row['loop']['ns']:.0f} ns {row['loop']['ir']:.0f} Ir, "
          f"lapack {row['lapack']['ns']:.0f} ns {row['lapack']['ir']:.0f} Ir", file=sys.stderr, flush=True)
    return row


def run(work, sizes):
    """sizes: NQ values; NC = NQ/2 constraint rows (the shape of the Cartesian chains), and NC = 0 (the angle chains)."""
    return [case(work, nq, nc) for nq in sizes for nc in (nq // 2, 0)]


def crossover(rows, nc_of, key):
    """The smallest NQ from which LAPACK is faster at every larger measured size, by `key` (ns or ir); None if never."""
    rows = sorted((r for r in rows if r["nc"] == nc_of(r["nq"])), key=lambda r: r["nq"])
    best = None
    for r in reversed(rows):
        if r["lapack"][key] < r["loop"][key]:
            best = r["nq"]
        else:
            break
    return best
