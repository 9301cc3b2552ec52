"""report.py — BENCHMARKS.md from one run's results: machine, commands, targets, tables; keeps the hand-written notes."""
import os

NOTES_MARK = "<!-- notes: written by hand, kept by run.sh -->"


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


def generation(res):
    lim = res["limits"]
    out = ["## Generation: time and peak memory\n",
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


def operations(res):
    out = ["\n## Operations in the generated code after CSE\n",
           "The rule, applied by `tests/bench/count_ops.py` to both C texts: every binary `+ - * /`, every unary "
           "minus and every function call (`sin`, `cos`, `sqrt`, `pow`, ...) counts 1; subscripts, assignments and "
           "declarations count 0. Counted in lagrangec's `NAME_kkt_terms` (M's lower triangle, f = Q − k, J, the "
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


def rhs(res):
    out = ["\n## One right-hand-side evaluation\n",
           "`tests/bench/bench_rhs.c` calls one rhs at the spec's initial state, every side compiled with "
           "`cc -std=c11 -O2` (what `lagrangec simulate` uses). lagrangec: the generated `NAME_rhs`. SymPy: its "
           "cse+ccode of M (lower triangle), forcing, J and constraint right-hand side, wrapped in "
           "`sympy_adapter.c` with (a) *the same solve*: the very `NAME_factor_kkt`/`NAME_solve_kkt` lagrangec "
           "generated for that chain, so the two sides differ only in the equations — the target is measured "
           "against this; and (b) *dense loops*: `dense_kkt.h`, the generic dense Cholesky loops a wrapper "
           "without lagrangec's sparsity-specialised solve would use. *Ir* is instructions per call from "
           "`valgrind --tool=callgrind --toggle-collect=bench_call` (exact, repeatable); *ns* is the median of 5 "
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


def simulation(res):
    out = ["\n## Simulation throughput\n",
           "`lagrangec simulate SPEC --dt 1e-3 --t-end T --project MODE` (RK4), steps/s from its summary "
           "(integration loop only), median of 3. *allocations per step*: malloc/calloc/realloc calls of a "
           "100-step run minus those of a 50-step run, over 50, counted by the LD_PRELOAD library "
           "`tests/bench/alloc_count.c`.\n",
           "| system | steps | none steps/s | velocity steps/s | full steps/s | allocations per step |",
           "|---|---:|---:|---:|---:|---:|"]
    systems = []
    for r in res["simulation"]:
        if "steps_per_s" in r and r["system"] not in systems:
            systems.append(r["system"])
    for s in systems:
        rows = {r["mode"]: r for r in res["simulation"] if r["system"] == s}
        allocs = max(r["allocs_per_step"] for r in rows.values())
        out.append(f"| {s} | {rows['none']['steps']} | {rows['none']['steps_per_s']:.0f} | "
                   f"{rows['velocity']['steps_per_s']:.0f} | {rows['full']['steps_per_s']:.0f} | {allocs:g} |")
    extra = [r for r in res["simulation"] if "steps_per_s" not in r]
    if extra:
        out.append("\nAllocations per step at larger sizes (mode full): " +
                   ", ".join(f"{r['system']}: {r['allocs_per_step']:g}" for r in extra) + ".")
    return out


def kkt(res):
    k = res["kkt"]
    out = ["\n## Large systems: generated KKT solve vs the runtime's LAPACK path\n",
           "`tests/bench/kkt_bench.c` per model (`lagrangec generate --no-jacobian`, `cc -O2`; *dense*: "
           "M = diag(m) + k 1 1ᵀ from parameters, with *half* n/2 rows q_i − q_(i+n/2); the chains of "
           "`chain_specs.py`): the generated "
           "`NAME_rhs` with its own solve (straight-line code, or dense loops over compile-time sizes when that "
           "code would pass 2600 multiply-adds and divisions) against `lgc_kkt_lapack_rhs` (runtime/src/kkt_lapack.c: dpotrf, "
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


def profile(res):
    out = ["\n## Where the generator spends its time\n",
           "`valgrind --tool=callgrind lagrangec generate SPEC`, inclusive instructions as a share of the whole "
           "run: lagrangec's own functions above 2%, and the GiNaC and C++ runtime functions that matter. "
           "Recursive functions are shown at their outermost call (GiNaC's diff and expand recurse through "
           "each other, so their shares overlap).\n"]
    for name, p in res["profile"].items():
        out.append(f"**{name}** ({p['total_ir'] / 1e9:.2f} G instructions):\n")
        out.append("| function | share |")
        out.append("|---|---:|")
        out += [f"| `{fn}` | {share * 100:.1f}% |" for fn, share in p["functions"]]
        out.append("")
    return out


def targets(res):
    t = res["targets"]
    yes = lambda ok: "**met**" if ok else "**missed**"
    out = ["## Targets of issue 5\n", "| target | measured | verdict |", "|---|---|---|"]
    s = t["speedup_a10"]
    out.append("| generation ≥ 100× faster than SymPy at N = 10 (angles) | "
               + (f"{s['ratio']:.0f}× (SymPy work {s['sympy']:.2f} s / lagrangec {s['lgc']:.3f} s; "
                  f"{s['ratio_process']:.0f}× process to process) | {yes(s['ratio'] >= 100)}"
                  + ("" if s["ratio"] >= 100 else f", by {100 / s['ratio']:.1f}×") + " |"
                  if s else "not measured | — |"))
    c = t["c50"]
    out.append("| 50-link Cartesian chain generated in < 10 s and < 2 GiB | "
               + ("not measured | — |" if c == "not measured" else
                  f"over the {res['limits']['lgc']} s limit | **missed** |" if c is None else
                  f"{c['wall']:.2f} s, {c['peak_mib']:.0f} MiB | {yes(c['wall'] < 10 and c['peak_mib'] < 2048)} |"))
    r = t["rhs"]
    out.append("| generated rhs ≤ ½ the instructions of SymPy's, every N ≥ 4 reached | "
               + (f"worst ratio {r['worst']:.2f} ({r['where']}); best {r['best']:.2f} | {yes(r['worst'] <= 0.5)}"
                  + ("" if r["worst"] <= 0.5 else f", by {r['worst'] / 0.5:.1f}×") + " |"
                  if r else "not measured | — |"))
    a = t["allocs"]
    out.append(f"| no allocation inside a simulation step | max {a:g} allocations per step over all runs | "
               f"{yes(a == 0)} |")
    return out + [""]


def machine(res):
    m = res["machine"]
    return ["## Machine and commands\n", "```", f"$ nproc\n{m['nproc']}", f"$ lscpu | head -15\n{m['lscpu']}",
            f"compiler: {m['cc']}", f"versions: {m['versions']}", f"source: {m['source']}", "```\n",
            f"Reproduce (a fresh Debian 12 as root, in the repository; this run took {res['elapsed_min']:.0f} min):\n",
            "```",
            "apt-get install -y python3-sympy valgrind   # besides the build dependencies of README.md",
            f"tests/bench/run.sh{' ' + res['options'] if res['options'] else ''}"
            "            # builds build-bench (release) and writes BENCHMARKS.md", "```\n",
            "Everything below comes from that one run; SymPy's side runs in the same run, with Debian's "
            "`/usr/bin/python3` and `python3-sympy`. `ninja -C BUILD_DIR bench` runs the same on an existing "
            "build directory. The measurements underneath, per case:\n", "```",
            "/usr/bin/time -f '%e %M' lagrangec generate SPEC -o DIR",
            "/usr/bin/time -f '%e %M' /usr/bin/python3 tests/bench/sympy_chain.py angles|cartesian N OUT.c",
            "valgrind --tool=callgrind --toggle-collect=bench_call RHS_HARNESS calls 20     # and: RHS_HARNESS ns",
            "lagrangec simulate SPEC --dt 1e-3 --t-end T --project none|velocity|full      # steps/s of the summary",
            "LD_PRELOAD=alloc_count.so SIMULATOR simulate --dt 1e-3 --t-end 0.1|0.05 --project MODE --quiet",
            "OPENBLAS_NUM_THREADS=1 kkt_bench generated|lapack|terms ns   # and under callgrind --toggle-collect=call_once",
            "valgrind --tool=callgrind lagrangec generate SPEC -o DIR; callgrind_annotate --inclusive=yes", "```\n"]


def write(path, res):
    notes = ""
    if os.path.exists(path):
        with open(path) as f:
            text = f.read()
        if NOTES_MARK in text:
            notes = text[text.index(NOTES_MARK) + len(NOTES_MARK):].strip()
    lines = ["# Benchmarks (issue 5): lagrangec against SymPy\n",
             "Written by `tests/bench/run.sh`; do not edit above the notes mark at the end.\n"]
    for part in (machine, targets, generation, operations, rhs, simulation, kkt, profile):
        lines += part(res)
    lines += ["", NOTES_MARK, "", notes]
    with open(path, "w") as f:
        f.write("\n".join(lines).rstrip() + "\n")
