"""kkt_bench.py — generated KKT solves (straight-line or dense loops) against the runtime's LAPACK path (kkt_bench.c).

Alone: /usr/bin/python3 -B tests/bench/kkt_bench.py BUILD_DIR [FORM:N ...] prints the BENCHMARKS.md section
(default cases: CASES); BUILD_DIR holds gen/lagrangec and runtime/liblagrangec.a. FORM: dense (M dense,
no constraints), dense_half (n/2 constraint rows), angles, cartesian (the chains of chain_specs.py).
"""
import os
import subprocess
import sys
import tempfile

import chain_specs
import measure

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
# One BLAS thread: the runtime steps one model per thread, and this machine is shared.
ENV = dict(os.environ, OPENBLAS_NUM_THREADS="1")
CASES = ([("dense", n) for n in (10, 20, 24, 28, 32, 40, 60, 80)]
         + [("dense_half", n) for n in (10, 16, 20, 22, 24, 26, 30, 40, 60)]
         + [("angles", 10), ("angles", 20), ("cartesian", 10), ("cartesian", 50)])
QUICK_CASES = [("angles", 10), ("dense", 24)]  # a straight-line and a dense-loop solve
PATHS = ("generated", "lapack", "terms")
COMMANDS = ["OPENBLAS_NUM_THREADS=1 kkt_bench generated|lapack|terms ns   # and: callgrind --toggle-collect=call_once"]


def blas_flags():
    return subprocess.run(["pkg-config", "--cflags", "--libs", "lapacke", "openblas"],
                          capture_output=True, text=True, check=True).stdout.split()


def dense_spec(work, form, n):
    """M = diag(m) + k 1 1^T: dense, from parameters (nothing folds at compile time), and only O(n) of C to
    evaluate, where the angle chains' O(n^3) expressions take gcc -O2 minutes from n = 30. dense_half adds
    the n/2 rows q_i - q_(i+n/2)."""
    name, q = f"{form}{n}", [f"q{i}" for i in range(1, n + 1)]
    rows = [f'"q{i} - q{i + n // 2}"' for i in range(1, n // 2 + 1)] if form == "dense_half" else []
    squares = " + ".join(f"m{i}*{x}'^2" for i, x in enumerate(q, 1))
    lines = [f'name = "{name}"', f'title = "dense M, {len(rows)} constraint rows"',
             "coordinates = [" + ", ".join(f'"{x}"' for x in q) + "]",
             f'kinetic = "({squares})/2 + k*(' + " + ".join(x + "'" for x in q) + ')^2/2"',
             'potential = "s*(' + " + ".join(x + "^2" for x in q) + ')/2"',
             "[parameters]"] + [f"m{i} = 1.0" for i in range(1, n + 1)] + ["k = 1.0", "s = 1.0"]
    if rows:
        lines += ["[constraints]", "holonomic = [" + ", ".join(rows) + "]"]
    path = f"{work}/{name}.toml"
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    return name, path, len(rows)


def case(lagrangec, build, work, form, n):
    if form.startswith("dense"):
        name, spec, nc = dense_spec(work, form, n)
        nq = n
    else:
        name, spec = chain_specs.write(work, form, n)
        nq, nc = (n, 0) if form == "angles" else (2 * n, n)
    measure.output([lagrangec, "generate", spec, "-o", work, "--no-jacobian"])
    exe = f"{work}/kkt_{name}"
    measure.output([os.environ.get("CC", "cc"), "-std=c11", "-O2", f"-DMODEL={name}_model",
                    f"-I{work}", f"-I{ROOT}/runtime/include", f"-I{ROOT}/runtime/src",
                    f"{HERE}/kkt_bench.c", f"{work}/{name}.c", f"{work}/{name}_model.c",
                    f"{build}/runtime/liblagrangec.a"] + blas_flags() + ["-lm", "-o", exe])
    with open(f"{work}/{name}_model.c") as f:
        straight = "1  /* the rhs's solve is straight-line code */" in f.read()
    row = {"form": form, "n": n, "nq": nq, "nc": nc,
           "straight_line": straight, "max_rel_diff": float(measure.output([exe, "check"], env=ENV))}
    calls = 3 if n >= 40 else 20
    for path in PATHS:
        row[path] = {"ns": float(measure.output([exe, path, "ns"], env=ENV)),
                     "ir": measure.callgrind_ir([exe, path, "calls", str(calls)], "call_once", env=ENV) / calls}
    for path in ("generated", "lapack"):
        row[path]["solve_ns"] = row[path]["ns"] - row["terms"]["ns"]
        row[path]["solve_ir"] = row[path]["ir"] - row["terms"]["ir"]
    print(f"kkt {name}: solve generated {row['generated']['solve_ns']:.0f} ns, "
          f"lapack {row['lapack']['solve_ns']:.0f} ns", file=sys.stderr, flush=True)
    return row


def run(lagrangec, build, work, cases):
    return [case(lagrangec, build, work, form, n) for form, n in cases]


def crossover(rows, form, key):
    """Smallest n of `form` from which LAPACK's solve is faster at every larger measured n, by `key`
    (solve_ns or solve_ir); None if never."""
    best = None
    for r in sorted((r for r in rows if r["form"] == form), key=lambda r: r["nq"], reverse=True):
        if r["lapack"][key] < r["generated"][key]:
            best = r["nq"]
        else:
            break
    return best


def results(rows):
    return {"rows": rows, "crossover": {f"{form}_{key}": crossover(rows, form, f"solve_{key}")
                                        for form in ("dense", "dense_half") for key in ("ns", "ir")}}


def section(ctx, res):
    return results(run(ctx["lagrangec"], ctx["build"], ctx["work"], QUICK_CASES if ctx["quick"] else CASES))


def report(res):
    if not res.get("kkt"):
        return []
    k = res["kkt"]
    out = ["\n## Large systems: generated KKT solve vs the runtime's LAPACK path\n",
           "`tests/bench/kkt_bench.c` per model (`lagrangec generate --no-jacobian`, `cc -O2`; *dense*: "
           "M = diag(m) + k 1 1ᵀ from parameters, with *half* n/2 rows q_i − q_(i+n/2); the chains of "
           "`chain_specs.py`): the generated "
           "`NAME_rhs` with its own solve (straight-line code, or dense loops over compile-time sizes when that "
           "code would pass 2600 multiply-adds and divisions, gen/plan/kkt_plan.cpp) against `lgc_kkt_lapack_rhs` (runtime/src/kkt_lapack.c: dpotrf, "
           "dtrsv, dtrsm, dsyrk, dgemv, dpotrs; OpenBLAS with 1 thread). Both call `NAME_kkt_terms` first; the "
           "*solve* columns are a path's cost minus that call's. ns: median of 5 runs; Ir: callgrind (under "
           "valgrind OpenBLAS runs a different, non-AVX-512 kernel, so its Ir is only indicative; the ns decide). "
           f"Largest relative difference of dxdt between the paths: {max(r['max_rel_diff'] for r in k['rows']):.1e}.\n",
           "| model | n | m | generated solve | kkt_terms ns | generated solve ns | LAPACK solve ns "
           "| generated solve Ir | LAPACK solve Ir | LAPACK faster |",
           "|---|---:|---:|---|---:|---:|---:|---:|---:|:-:|"]
    for r in sorted(k["rows"], key=lambda r: (r["form"], r["nq"])):
        g, l = r["generated"], r["lapack"]
        out.append(f"| {r['form']} {r['n']} | {r['nq']} | {r['nc']} | "
                   f"{'straight-line' if r['straight_line'] else 'dense loops'} | {r['terms']['ns']:.0f} | "
                   f"{g['solve_ns']:.0f} | {l['solve_ns']:.0f} | {g['solve_ir']:.0f} | {l['solve_ir']:.0f} | "
                   f"{'yes' if l['solve_ns'] < g['solve_ns'] else 'no'} |")
    c = k["crossover"]
    out.append(f"\n**Crossover for dense M** (smallest measured n from which LAPACK's solve is faster at every "
               f"larger measured n): m = 0: n = {c['dense_ns']} by time ({c['dense_ir']} by Ir); m = n/2: "
               f"n = {c['dense_half_ns']} by time ({c['dense_half_ir']} by Ir). The runtime takes LAPACK when the "
               "generated solve is the dense-loop one and n ≥ `LGC_LAPACK_MIN_NQ` "
               "(runtime/include/lagrangec/system.h).")
    return out


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    build = os.path.abspath(sys.argv[1])
    cases = [(a.split(":")[0], int(a.split(":")[1])) for a in sys.argv[2:]] or CASES
    with tempfile.TemporaryDirectory(prefix="lagrangec-kkt-") as work:
        rows = run(os.path.join(build, "gen", "lagrangec"), build, work, cases)
    print("\n".join(report({"kkt": results(rows)})))


if __name__ == "__main__":
    main()
