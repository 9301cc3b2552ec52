"""rhs_bench.py — cost of one rhs evaluation: lagrangec's NAME_rhs vs SymPy's cse+ccode with the same KKT solve."""
import os
import sys

import measure

HERE = os.path.dirname(os.path.abspath(__file__))
CC = os.environ.get("CC", "cc")
CFLAGS = ["-std=c11", "-O2"]  # what `lagrangec simulate` compiles with
CALLS = 20  # callgrind counts are exact; a few calls average out nothing but are cheap
GRID, QUICK_GRID = (2, 4, 6, 8, 10), (2, 4)
NEEDS = ("generation",)
COMMANDS = ["LD_BIND_NOW=1 valgrind --tool=callgrind --toggle-collect=bench_call RHS_HARNESS calls 20   # and: ns"]


def build(work, row):
    """The harness executables for one chain: lagrangec; SymPy with lagrangec's own generated solve
    (the same solve); SymPy with dense loops (a generic solve)."""
    name, lgc_c, sym_c = row["name"], row["lgc"]["c"], row["sympy"]["c"]
    lgc_exe, same_exe, dense_exe = (f"{work}/rhs_{side}_{name}" for side in ("lgc", "sympy_same", "sympy_dense"))
    measure.output([CC] + CFLAGS + [f"-I{HERE}", f"-I{os.path.dirname(lgc_c)}",
                                    "-include", f"{name}.h", f"-DMODEL={name}", f"-DUMODEL={name.upper()}",
                                    f"{HERE}/lagrangec_adapter.c", lgc_c, f"{HERE}/bench_rhs.c", "-lm", "-o", lgc_exe])
    sympy = [CC] + CFLAGS + [f"-I{HERE}", f"-I{os.path.dirname(sym_c)}", f'-DSYMPY_SOURCE="{os.path.basename(sym_c)}"']
    measure.output(sympy + [f"-I{os.path.dirname(lgc_c)}", f"-DMODEL={name}",
                            f'-DMODEL_SOURCE="{os.path.basename(lgc_c)}"',
                            f"{HERE}/sympy_adapter.c", f"{HERE}/bench_rhs.c", "-lm", "-o", same_exe])
    measure.output(sympy + [f"{HERE}/sympy_adapter.c", f"{HERE}/bench_rhs.c", "-lm", "-o", dense_exe])
    return lgc_exe, same_exe, dense_exe


def side(exe, solve_too=False):
    r = {"value": float(measure.output([exe, "value"])),
         "ir": measure.callgrind_ir([exe, "calls", str(CALLS)], "bench_call") / CALLS,
         "ns": float(measure.output([exe, "ns"]))}
    if solve_too:  # the dense solve's share, the same loops on both sides
        r["solve_ir"] = measure.callgrind_ir([exe, "calls", str(CALLS)], "bench_solve") / CALLS
    return r


def run(work, gen_rows, grid):
    """One row per generated chain with N in grid that both sides reached."""
    rows = []
    for g in gen_rows:
        if g["n"] not in grid or not g.get("lgc") or not g.get("sympy"):
            continue
        lgc_exe, same_exe, dense_exe = build(work, g)
        row = {"form": g["form"], "n": g["n"], "lgc": side(lgc_exe), "sympy": side(same_exe, solve_too=True),
               "sympy_dense": side(dense_exe, solve_too=True)}
        a, b, c = row["lgc"]["value"], row["sympy"]["value"], row["sympy_dense"]["value"]
        row["agree"] = all(abs(a - x) <= 1e-8 * max(1.0, abs(a), abs(x)) for x in (b, c))
        print(f"rhs {g['form']:9} N={g['n']:2}: lagrangec {row['lgc']['ir']:.0f} Ir {row['lgc']['ns']:.0f} ns, "
              f"sympy (same solve) {row['sympy']['ir']:.0f} Ir, sympy (dense loops) {row['sympy_dense']['ir']:.0f} Ir, "
              f"same result: {row['agree']}", file=sys.stderr, flush=True)
        rows.append(row)
    return rows


def section(ctx, res):
    """Needs the generation section's C (both sides'), at the N both reached."""
    return run(ctx["work"], res["generation"], QUICK_GRID if ctx["quick"] else GRID)


def report(res):
    if not res.get("rhs"):
        return []
    out = ["\n## One right-hand-side evaluation\n",
           "`tests/bench/bench_rhs.c` calls one rhs at the spec's initial state, every side compiled with "
           "`cc -std=c11 -O2` (what `lagrangec simulate` uses). lagrangec: the generated `NAME_rhs`. SymPy: its "
           "cse+ccode of M (lower triangle), forcing, J and constraint right-hand side, wrapped in "
           "`sympy_adapter.c` with (a) *the same solve*: the very `NAME_factor_kkt`/`NAME_solve_kkt` lagrangec "
           "generated for that chain, so the two sides differ only in the equations — the target is measured "
           "against this; and (b) *dense loops*: `dense_kkt.h`, the generic dense Cholesky loops a wrapper "
           "without lagrangec's sparsity-specialised solve would use. *Ir* is instructions per call from "
           "`valgrind --tool=callgrind --toggle-collect=bench_call` with `LD_BIND_NOW=1`, so that no call pays "
           "for the dynamic linker's lazy binding (exact, repeatable); *ns* is the median of 5 "
           "timed runs (noisy: the machine is shared). *solve Ir* is the solve's share "
           "(`--toggle-collect=bench_solve`), the same on lagrangec's side as in (a). *same* says all sides "
           "returned the same last entry of dx/dt (relative 1e-8).\n",
           "| form | N | lagrangec Ir | SymPy, same solve Ir | ratio | solve Ir | lagrangec equations Ir "
           "| SymPy equations Ir | SymPy, dense loops Ir | ratio | lagrangec ns | SymPy (same solve) ns | same |",
           "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|:-:|"]
    for r in res["rhs"]:
        lgc, sym, dense = r["lgc"], r["sympy"], r["sympy_dense"]
        solve = sym["solve_ir"]
        out.append(f"| {r['form']} | {r['n']} | {lgc['ir']:.0f} | {sym['ir']:.0f} | {lgc['ir'] / sym['ir']:.2f} | "
                   f"{solve:.0f} | {lgc['ir'] - solve:.0f} | {sym['ir'] - solve:.0f} | {dense['ir']:.0f} | "
                   f"{lgc['ir'] / dense['ir']:.2f} | {lgc['ns']:.0f} | {sym['ns']:.0f} | "
                   f"{'yes' if r['agree'] else '**no**'} |")
    return out
