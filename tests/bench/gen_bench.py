"""gen_bench.py — generation time, peak memory and operation counts for the N-link chains, lagrangec vs SymPy."""
import json
import os
import sys

import chain_specs
import count_ops
import measure

HERE = os.path.dirname(os.path.abspath(__file__))


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
                    row["lgc"]["ops"] = count_ops.count_function(f"{out}/{name}.c", f"{name}_kkt_terms")
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
