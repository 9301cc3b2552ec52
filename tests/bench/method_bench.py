"""method_bench.py — the integration methods against each other (issues 14, 28): rhs evaluations, Newton work,
instructions (callgrind, inside lgc_sim_integrate) and error at t = 10 against a tight reference, for dopri5, adams
and bdf on the two stiff spring pendulums (overdamped and lightly damped, rtol 1e-6) and a 5-link Cartesian chain
(rtol 1e-10). The work–precision plots over many tolerances are docs/work_precision.py's."""
import glob
import math
import os
import sys

import chain_specs
import measure

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "docs"))
import work_precision  # noqa: E402

TIME_RUNS = 5  # the time column: the median of this many runs
# dopri5's ladder on the stiff springs, for its instructions and time at the error bdf reached (matched error)
LADDER = [1e-3, 3e-4, 1e-4, 3e-5, 1e-5, 3e-6, 1e-6, 3e-7, 1e-7]

COMMANDS = ["lagrangec simulate SPEC --t-end 10 --sample 10 --summary-json - --method M --rtol R --atol R/1000   "
            "# reference: dopri5 --rtol 1e-13 --atol 1e-16",
            "valgrind --tool=callgrind --toggle-collect=lgc_sim_integrate PROGRAM simulate --t-end 10 --sample 10 "
            "--quiet --method M --rtol R --atol R/1000   # PROGRAM: the cached simulator simulate built",
            "# matched error: the same for dopri5 at rtol 1e-3, 3e-4, ..., 1e-7 on the stiff springs; its instructions "
            "and time at bdf's error interpolated (log-log) between the two rungs around it"]


def cases(work):
    chain = chain_specs.write(work, "cartesian", 5)[1]
    return [("spring pendulum (stiff)", os.path.join(ROOT, "specs", "spring_pendulum.toml"), 1e-6,
             ["dopri5", "adams", "bdf"]),
            ("spring pendulum, lightly damped (stiff)", os.path.join(ROOT, "specs", "spring_pendulum_light.toml"), 1e-6,
             ["dopri5", "adams", "bdf"]),
            ("5-link chain (Cartesian)", chain, 1e-10, ["dopri5", "adams", "bdf"])]


def program(cache, spec, method):
    """The simulator simulate compiled for spec, the newest (one program serves every method: it carries the
    Jacobian the CVODE methods use)."""
    name = os.path.splitext(os.path.basename(spec))[0]
    found = glob.glob(os.path.join(cache, f"{name}-jacobian-*", name)) if method in ("adams", "bdf") else []
    return max(found or glob.glob(os.path.join(cache, f"{name}-[0-9a-f]*", name)), key=os.path.getmtime)


def measured_run(lagrangec, spec, method, rtol, env, reference):
    """One run's summary figures, its error, the median time of TIME_RUNS and its instructions; None if it failed."""
    options = work_precision.tolerance_options(method, rtol, rtol / 1000)
    s = work_precision.simulate(lagrangec, spec, options, env)
    if not s:
        return None
    return dict(steps=s["steps"], rhs=s["rhs_evaluations"], jac=s["jacobian_evaluations"],
                newton=s["newton_iterations"], error=work_precision.error(s, reference),
                wall=measure.median([s["wall_time"]] + [work_precision.simulate(lagrangec, spec, options, env)["wall_time"]
                                                        for _ in range(TIME_RUNS - 1)]),
                ir=measure.callgrind_ir([program(env["LAGRANGEC_CACHE"], spec, method), "simulate", "--t-end", "10",
                                         "--sample", "10", "--quiet"] + options, "lgc_sim_integrate", env=env))


def at_error(ladder, error, key):
    """ladder's `key` at `error`, interpolated in log-log between the two rungs whose errors bracket it (None
    outside the ladder's errors)."""
    pts = sorted((r["error"], r[key]) for r in ladder if r["error"] > 0)
    for (e0, v0), (e1, v1) in zip(pts, pts[1:]):
        if e0 <= error <= e1 and e1 > e0:
            w = math.log(error / e0) / math.log(e1 / e0)
            return math.exp(math.log(v0) + w * (math.log(v1) - math.log(v0)))
    return None


def section(ctx, res):
    work, lagrangec = ctx["work"], ctx["lagrangec"]
    env = dict(os.environ, LAGRANGEC_CACHE=os.path.join(work, "method-cache"))
    rows, matched = [], []
    for label, spec, rtol, methods in cases(work):
        reference, floor = work_precision.reference_state(lagrangec, spec, env)
        for method in methods:
            m = measured_run(lagrangec, spec, method, rtol, env, reference)
            row = {"system": label, "method": method, "rtol": rtol, "floor": floor, "ok": m is not None}
            row.update(m or {})
            print(f"method {label} {method}: {row}", file=sys.stderr, flush=True)
            rows.append(row)
        bdf = next((r for r in rows if r["system"] == label and r["method"] == "bdf" and r["ok"]), None)
        if "stiff" in label and bdf:
            ladder = [dict(m, rtol=t) for t in LADDER
                      if (m := measured_run(lagrangec, spec, "dopri5", t, env, reference))]
            print(f"method {label} dopri5 ladder: {ladder}", file=sys.stderr, flush=True)
            matched.append({"system": label, "bdf": bdf, "ladder": ladder,
                            "dopri5_ir": at_error(ladder, bdf["error"], "ir"),
                            "dopri5_wall": at_error(ladder, bdf["error"], "wall")})
    return {"rows": rows, "matched": matched}


def report(res):
    methods = res.get("methods")
    if not methods:
        return []
    rows = methods["rows"] if isinstance(methods, dict) else methods
    out = ["\n## Methods (issues 14, 28)\n",
           "`simulate --t-end 10` with each method at one tolerance (atol = rtol/1000), the error at t = 10 the "
           "largest |difference| of q and q' from a reference run (dopri5, rtol 1e-13, atol 1e-16; *floor*: how far "
           "bdf at rtol 1e-12 lands from it). Target: on the stiff example at rtol 1e-6, bdf at most 1/20 of "
           "dopri5's rhs evaluations, within 1e-4 of the reference; on the lightly damped one (issue 28) at most 1/15, "
           "and on both at most 1/5 of dopri5's instructions. *instructions*: callgrind inside lgc_sim_integrate "
           "(the run without start-up); *x dopri5*: the method's count over dopri5's on the same system (the "
           "targets: <= 0.05, <= 0.067, <= 0.2); *time*: `wall_time` of the summary, the median of "
           f"{TIME_RUNS} runs. Plots over many tolerances: docs/work-precision.md.\n",
           "| system | rtol | method | steps | rhs evaluations | Jacobians | Newton iterations | error | "
           "instructions | x dopri5 (rhs) | x dopri5 (instructions) | time (s) | x dopri5 (time) |",
           "|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    base = {r["system"]: r for r in rows if r["method"] == "dopri5" and r["ok"]}
    for r in rows:
        if not r["ok"]:
            out.append(f"| {r['system']} | {r['rtol']:g} | {r['method']} | failed | | | | | | | | | |")
            continue
        dash = lambda v: "" if v is None else str(v)  # noqa: E731
        ratio = lambda r, k: f"{r[k] / base[r['system']][k]:.3f}" if r['system'] in base else ""  # noqa: E731
        out.append(f"| {r['system']} | {r['rtol']:g} | {r['method']} | {r['steps']} | {r['rhs']} | {dash(r['jac'])} "
                   f"| {dash(r['newton'])} | {r['error']:.1e} (floor {r['floor']:.0e}) | {r['ir']} "
                   f"| {ratio(r, 'rhs')} | {ratio(r, 'ir')} | {r['wall']:.4f} | {ratio(r, 'wall')} |")
    matched = methods.get("matched", []) if isinstance(methods, dict) else []
    if matched:
        out += ["", "At matched error (target: bdf at most 1/5 of dopri5's instructions on both stiff springs): dopri5 "
                "run at rtol " + ", ".join(f"{t:g}" for t in LADDER) + " (atol = rtol/1000), its instructions and time "
                "at bdf's error (rtol 1e-6, above) interpolated in log-log between the two runs whose errors bracket "
                "it.\n",
                "| system | bdf error | bdf instructions | dopri5 instructions at that error | x dopri5 (instructions) "
                "| bdf time (s) | dopri5 time at that error (s) | x dopri5 (time) | verdict |",
                "|---|---:|---:|---:|---:|---:|---:|---:|---|"]
        for m in matched:
            b, ir, wall = m["bdf"], m["dopri5_ir"], m["dopri5_wall"]
            if ir is None:
                errors = ", ".join(f"{r['error']:.1e}" for r in m["ladder"])
                out.append(f"| {m['system']} | {b['error']:.1e} | {b['ir']} | outside dopri5's errors ({errors}) "
                           "| | | | | not measured |")
                continue
            x = b["ir"] / ir
            out.append(f"| {m['system']} | {b['error']:.1e} | {b['ir']} | {ir:.0f} | {x:.3f} | {b['wall']:.4f} "
                       f"| {wall:.4f} | {b['wall'] / wall:.3f} | "
                       + ("**met**" if x <= 0.2 else f"**missed**, by {x / 0.2:.1f}×") + " |")
    return out
