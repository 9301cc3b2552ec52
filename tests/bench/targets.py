"""targets.py — the issues' targets as verdict tables, from one run's results; a target whose section did not run
is "not measured"."""
import gen_bench
import mujoco_bench

NOT_MEASURED = "not measured | — |"


def verdict(ok, by=None):
    """'**met**', or '**missed**' with by how many times."""
    return "**met**" if ok else "**missed**" + (f", by {by:.1f}×" if by else "")


def issue5(res):
    out = ["## Targets of issue 5\n", "| target | measured | verdict |", "|---|---|---|"]
    gen = {(r["form"], r["n"]): r for r in res.get("generation", [])}
    a10, c50 = gen.get(("angles", 10)), gen.get(("cartesian", 50))
    cell = NOT_MEASURED
    if a10 and a10.get("lgc") and a10.get("sympy"):
        ratio = a10["sympy"]["total"] / a10["lgc"]["wall"]
        cell = (f"{ratio:.0f}× (SymPy work {a10['sympy']['total']:.2f} s / lagrangec {a10['lgc']['wall']:.3f} s; "
                f"{a10['sympy']['wall'] / a10['lgc']['wall']:.0f}× process to process) | "
                f"{verdict(ratio >= 100, 100 / ratio)} |")
    out.append(f"| generation ≥ 100× faster than SymPy at N = 10 (angles) | {cell}")
    cell = NOT_MEASURED
    if c50 and "lgc" in c50:
        c = c50["lgc"]
        cell = (f"over the {gen_bench.LIMITS['lgc']} s limit | **missed** |" if c is None else
                f"{c['wall']:.2f} s, {c['peak_mib']:.0f} MiB | {verdict(c['wall'] < 10 and c['peak_mib'] < 2048)} |")
    out.append(f"| 50-link Cartesian chain generated in < 10 s and < 2 GiB | {cell}")
    ratios = [(r["lgc"]["ir"] / r["sympy"]["ir"], f"{r['form']} N = {r['n']}")
              for r in res.get("rhs", []) if r["n"] >= 4]
    cell = NOT_MEASURED
    if ratios:
        worst, best = max(ratios), min(ratios)
        cell = (f"worst ratio {worst[0]:.2f} ({worst[1]}); best {best[0]:.2f} | "
                f"{verdict(worst[0] <= 0.5, worst[0] / 0.5)} |")
    out.append(f"| generated rhs ≤ ½ the instructions of SymPy's, every N ≥ 4 reached | {cell}")
    cell = NOT_MEASURED
    if res.get("simulation"):
        a = max(r["allocs_per_step"] for r in res["simulation"])
        cell = f"max {a:g} allocations per step over all runs | {verdict(a == 0)} |"
    out.append(f"| no allocation inside a simulation step | {cell}")
    return out + [""]


def _mujoco_rows(res, n):
    return {r["side"]: r for r in res.get("mujoco", {}).get("rows", []) if r["n"] == n}


def _faster_than_mj_forward(res, writing):
    """The 20-link chain in `writing`: fewer rhs instructions and fewer ns than mj_forward."""
    rows = _mujoco_rows(res, 20)
    mj, r = rows.get("mujoco"), rows.get(writing)
    if not mj or not r:
        return NOT_MEASURED
    if "ir" not in r:
        return f"no rhs: {mujoco_bench.stopped(r)} | **missed** |"
    ns, mj_ns = r["timing"]["ns"], mj["timing"]["ns"]
    worst = max(r["ir"] / mj["ir"], ns / mj_ns)
    return (f"{r['ir']:.0f} Ir against {mj['ir']:.0f} ({r['ir'] / mj['ir']:.2f}×); {ns:.0f} ns against "
            f"{mj_ns:.0f} ({ns / mj_ns:.2f}×) | {verdict(worst < 1, worst)} |")


def _first_run(res, writing, seconds, mib=None, kib=None):
    """The 20-link chain's first `simulate` (generate and compile) within seconds, mib and a .c within kib."""
    r = _mujoco_rows(res, 20).get(writing)
    if not r:
        return NOT_MEASURED
    f = r.get("first_run")
    if not f or f["status"] != "ok":
        return f"{mujoco_bench.stopped(r, ('generate', 'first_run'))} | **missed** |"
    misses = [f["wall"] / seconds]
    text = f"{f['wall']:.1f} s"
    if mib:
        misses.append(f["peak_mib"] / mib)
        text += f", {f['peak_mib']:.0f} MiB"
    if kib:
        misses.append(r["c_kib"] / kib)
        text += f", .c {r['c_kib']:.0f} kB"
    worst = max(misses)
    return f"{text} | {verdict(worst < 1, worst)} |"


def issue13(res):
    out = ["## Targets of issue 13\n",
           "The 20-link rows are the rod chains of the MuJoCo section below (the issue's figures were taken on "
           "point-mass chains; the rods add one inertia term per link). *by*: the largest of the measured / "
           "target ratios.\n",
           "| target | measured | verdict |", "|---|---|---|"]
    a10 = next((r for r in res.get("rhs", []) if r["form"] == "angles" and r["n"] == 10), None)
    cell = NOT_MEASURED
    if a10:
        ratio = a10["lgc"]["ir"] / a10["sympy"]["ir"]
        cell = (f"{a10['lgc']['ir']:.0f} Ir against SymPy's {a10['sympy']['ir']:.0f} with the same solve "
                f"({ratio:.2f}×) | {verdict(ratio <= 0.5, ratio / 0.5)} |")
    out.append(f"| 10-link chain in absolute angles: rhs ≤ 0.5× SymPy's instructions | {cell}")
    out.append("| 20-link chain in absolute angles: rhs fewer instructions and fewer ns than `mj_forward` | "
               + _faster_than_mj_forward(res, "absolute"))
    out.append("| 20-link chain in relative angles: rhs fewer instructions and fewer ns than `mj_forward` | "
               + _faster_than_mj_forward(res, "relative"))
    out.append("| 20-link chain in relative angles: generates and compiles (first `simulate`) in < 30 s and "
               "< 1 GiB, `.c` < 300 kB | " + _first_run(res, "relative", 30, 1024, 300))
    out.append("| 20-link chain in absolute angles: first `simulate` < 3 s | " + _first_run(res, "absolute", 3))
    return out + [""]
