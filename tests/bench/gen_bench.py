"""gen_bench.py — generation time, peak memory and operation counts for the N-link chains, lagrangec vs SymPy."""
import json
import os
import sys

import chain_specs
import count_ops
import measure

HERE = os.path.dirname(os.path.abspath(__file__))
GRID, QUICK_GRID = (1, 2, 4, 6, 8, 10, 15, 20, 30, 40, 50), (1, 2, 4)
LIMITS = {"lgc": 120, "sympy": 60}  # seconds per case
COMMANDS = ["/usr/bin/time -f '%e %M' lagrangec generate SPEC -o DIR",
            "/usr/bin/time -f '%e %M' /usr/bin/python3 tests/bench/sympy_chain.py angles|cartesian N OUT.c"]


def lagrangec_case(lagrangec, spec, out, limit):
    """Median of 3 runs (1 when a run takes over 5 s); None past the limit."""
    runs = []
    for _ in range(3):
        r = measure.timed([lagrangec, "generate", "--no-jacobian", spec, "-o", out], limit)
        if r is None:
            return None
        runs.append(r)
        if r["wall"] > 5:
            break
    return {"wall": measure.median([r["wall"] for r in runs]),
            "peak_mib": measure.median([r["peak_mib"] for r in runs]), "runs": len(runs)}


def sympy_case(form, n, c_path, limit):
    r = measure.timed(["/usr/bin/python3", os.path.join(HERE, "sympy_chain.py"), form, str(n), c_path], limit)
    if r is None:
        return None
    r.update(json.loads(r.pop("stdout").strip().splitlines()[-1]))
    return r


def run(lagrangec, work, grid, lgc_limit, sympy_limit):
    """Rows per (form, N). A side's entry is None where it passed its limit,
    and absent at larger N, where it is not tried again."""
    out = os.path.join(work, "lagrangec")
    os.makedirs(out, exist_ok=True)
    rows = []
    for form in ("angles", "cartesian"):
        lgc_on = sympy_on = True
        for n in grid:
            name, spec = chain_specs.write(work, form, n)
            row = {"form": form, "n": n, "name": name}
            if lgc_on:
                row["lgc"] = lagrangec_case(lagrangec, spec, out, lgc_limit)
                lgc_on = row["lgc"] is not None
                if lgc_on:
                    row["lgc"]["ops"] = count_ops.count_function(f"{out}/{name}.c", f"{name}_kkt_entries")
                    row["lgc"]["c"] = f"{out}/{name}.c"
            if sympy_on:
                c_path = os.path.join(work, f"sympy_{form}_{n}.c")
                row["sympy"] = sympy_case(form, n, c_path, sympy_limit)
                sympy_on = row["sympy"] is not None
                if sympy_on:
                    row["sympy"]["ops"] = count_ops.count_function(c_path, "sympy_equations")
                    row["sympy"]["c"] = c_path
            print(f"generate {form:9} N={n:2}: lagrangec {fmt(row, 'lgc')}  sympy {fmt(row, 'sympy')}",
                  file=sys.stderr, flush=True)
            rows.append(row)
    return rows


def fmt(row, side):
    if side not in row:
        return "not tried"
    r = row[side]
    return "gave up" if r is None else f"{r['wall']:.2f} s {r['peak_mib']:.0f} MiB"


def section(ctx, res):
    return run(ctx["lagrangec"], ctx["work"], QUICK_GRID if ctx["quick"] else GRID, LIMITS["lgc"], LIMITS["sympy"])


def num(x, digits=2):
    return "—" if x is None else f"{x:.{digits}f}"


def cell(row, side, key, digits=2):
    """A generation-table cell: 'not tried' / '> limit' / the value."""
    if side not in row:
        return "not tried"
    if row[side] is None:
        return "> limit"
    return num(row[side][key], digits)


def speedup(row):
    if not row.get("lgc") or not row.get("sympy"):
        return "—"
    return f"{row['sympy']['total'] / row['lgc']['wall']:.0f}×"


def report_generation(res):
    lim = LIMITS
    out = ["\n## Generation: time and peak memory\n",
           f"One `lagrangec generate` per spec (median of 3, 1 when a run takes over 5 s; limit {lim['lgc']} s) "
           f"against one SymPy process (limit {lim['sympy']} s). *SymPy total* is the process's wall time "
           "(interpreter start and `import sympy` included); *SymPy work* is LagrangesMethod + msubs + cse + "
           "ccode inside it, excluding the import. Peak memory is the maximum resident set (`/usr/bin/time %M`). "
           "The speed-up is SymPy work / lagrangec total: the stricter of the two comparisons.\n",
           "| form | N | lagrangec s | lagrangec MiB | SymPy total s | SymPy work s | SymPy MiB | speed-up |",
           "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for r in res["generation"]:
        out.append(f"| {r['form']} | {r['n']} | {cell(r, 'lgc', 'wall', 3)} | {cell(r, 'lgc', 'peak_mib', 0)} | "
                   f"{cell(r, 'sympy', 'wall')} | {cell(r, 'sympy', 'total')} | {cell(r, 'sympy', 'peak_mib', 0)} | "
                   f"{speedup(r)} |")
    return out


def report_operations(res):
    out = ["\n## Operations in the generated code after CSE\n",
           "The rule, applied by `tests/bench/count_ops.py` to both C texts: every binary `+ - * /`, every unary "
           "minus and every function call (`sin`, `cos`, `sqrt`, `pow`, ...) counts 1; subscripts, assignments and "
           "declarations count 0. Counted in lagrangec's `NAME_kkt_entries` (M's lower triangle, f = Q − k, J, the "
           "stabilised constraint right-hand sides) and in SymPy's C for the same M lower triangle, forcing, J and "
           "constraint right-hand sides (SymPy has no Baumgarte terms: its r is −(J'q'), lagrangec's adds "
           "−αφ' − βφ). *count_ops* is SymPy's own `count_ops` of its cse output.\n",
           "| form | N | lagrangec ops | SymPy ops | SymPy count_ops | lagrangec / SymPy |",
           "|---|---:|---:|---:|---:|---:|"]
    for r in res["generation"]:
        if r.get("lgc") or r.get("sympy"):
            lgc = r["lgc"]["ops"] if r.get("lgc") else None
            sym = r["sympy"]["ops"] if r.get("sympy") else None
            cnt = r["sympy"]["count_ops"] if r.get("sympy") else None
            ratio = f"{lgc / sym:.2f}" if lgc and sym else "—"
            out.append(f"| {r['form']} | {r['n']} | {num(lgc, 0)} | {num(sym, 0)} | {num(cnt, 0)} | {ratio} |")
    return out


def report(res):
    return report_generation(res) + report_operations(res) if res.get("generation") else []
