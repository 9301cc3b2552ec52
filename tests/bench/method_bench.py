"""method_bench.py — the integration methods against each other (issues 14, 28): rhs evaluations, Newton work,
instructions (callgrind, inside lgc_sim_integrate) and error at t = 10 against a tight reference, for dopri5, adams
and bdf on the two stiff spring pendulums (overdamped and lightly damped, rtol 1e-6) and a 5-link Cartesian chain
(rtol 1e-10). The work–precision plots over many tolerances are docs/work_precision.py's."""
import glob
import os
import sys

import chain_specs
import measure

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "docs"))
import work_precision  # noqa: E402

TIME_RUNS = 5  # the time column: the median of this many runs

COMMANDS = ["lagrangec simulate SPEC --t-end 10 --sample 10 --summary-json - --method M --rtol R --atol R/1000   "
            "# reference: dopri5 --rtol 1e-13 --atol 1e-16",
            "valgrind --tool=callgrind --toggle-collect=lgc_sim_integrate PROGRAM simulate --t-end 10 --sample 10 "
            "--quiet --method M --rtol R --atol R/1000   # PROGRAM: the cached simulator simulate built"]


def cases(work):
    chain = chain_specs.write(work, "cartesian", 5)[1]
    return [("spring pendulum (stiff)", os.path.join(ROOT, "specs", "spring_pendulum.toml"), 1e-6,
             ["dopri5", "adams", "bdf"]),
            ("spring pendulum, lightly damped (stiff)", os.path.join(ROOT, "specs", "spring_pendulum_light.toml"), 1e-6,
             ["dopri5", "adams", "bdf"]),
            ("5-link chain (Cartesian)", chain, 1e-10, ["dopri5", "adams", "bdf"])]


def program(cache, spec, method):
    """The simulator simulate compiled for spec (the one with the Jacobian for the CVODE methods), newest first."""
    name = os.path.splitext(os.path.basename(spec))[0]
    pattern = f"{name}-jacobian-*" if method in ("adams", "bdf") else f"{name}-[0-9a-f]*"
    return max(glob.glob(os.path.join(cache, pattern, name)), key=os.path.getmtime)


def section(ctx, res):
    work, lagrangec = ctx["work"], ctx["lagrangec"]
    env = dict(os.environ, LAGRANGEC_CACHE=os.path.join(work, "method-cache"))
    rows = []
    for label, spec, rtol, methods in cases(work):
        reference, floor = work_precision.reference_state(lagrangec, spec, env)
        for method in methods:
            s = work_precision.simulate(lagrangec, spec, work_precision.tolerance_options(method, rtol, rtol / 1000),
                                        env)
            row = {"system": label, "method": method, "rtol": rtol, "floor": floor, "ok": s is not None}
            if s:
                row.update(steps=s["steps"], rhs=s["rhs_evaluations"], jac=s["jacobian_evaluations"],
                           newton=s["newton_iterations"], error=work_precision.error(s, reference),
                           wall=measure.median([s["wall_time"]] + [
                               work_precision.simulate(lagrangec, spec, work_precision.tolerance_options(
                                   method, rtol, rtol / 1000), env)["wall_time"] for _ in range(TIME_RUNS - 1)]),
                           ir=measure.callgrind_ir([program(env["LAGRANGEC_CACHE"], spec, method), "simulate",
                                                    "--t-end", "10", "--sample", "10", "--quiet"]
                                                   + work_precision.tolerance_options(method, rtol, rtol / 1000),
                                                   "lgc_sim_integrate", env=env))
            print(f"method {label} {method}: {row}", file=sys.stderr, flush=True)
            rows.append(row)
    return rows


def report(res):
    rows = res.get("methods")
    if not rows:
        return []
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
    return out
