"""correction_bench.py — what the one-step correction costs on the 10-link Cartesian chain (issue 14's target):
RK4 steps/s with --project none, velocity and full, interleaved, medians, and callgrind instructions per step."""
import glob
import os
import re
import subprocess
import sys

import chain_specs
import measure

MODES = ("none", "velocity", "full")
RUNS = 5
COMMANDS = ["lagrangec simulate chain_c10.toml --dt 1e-3 --t-end 5 --project none|velocity|full   # steps/s, "
            "5 rounds interleaved",
            "valgrind --tool=callgrind SIMULATOR simulate --dt 1e-3 --t-end 2|1 --project MODE --quiet   "
            "# (Ir(2000 steps) - Ir(1000 steps)) / 1000"]


def steps_per_second(lagrangec, spec, t_end, mode, env):
    out = measure.output([lagrangec, "simulate", spec, "--dt", "1e-3", "--t-end", str(t_end), "--project", mode],
                         env=env)
    return float(re.search(r"\(([\d.]+) steps/s\)", out).group(1))


def instructions(exe, t_end, mode):
    out = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", exe, "simulate",
                          "--dt", "1e-3", "--t-end", str(t_end), "--project", mode, "--quiet"],
                         capture_output=True, text=True, check=True).stderr
    return int(re.search(r"refs:\s*([\d,]+)", out).group(1).replace(",", ""))


def section(ctx, res):
    work, lagrangec = ctx["work"], ctx["lagrangec"]
    env = dict(os.environ, LAGRANGEC_CACHE=os.path.join(work, "correction-cache"))
    name, spec = chain_specs.write(work, "cartesian", 10)
    measure.output([lagrangec, "simulate", spec, "--dt", "1e-3", "--t-end", "1e-3", "--quiet"], env=env)
    exe = glob.glob(os.path.join(env["LAGRANGEC_CACHE"], f"{name}-*", name))[0]
    t_end = 0.5 if ctx["quick"] else 5.0
    sps = {mode: [] for mode in MODES}
    for _ in range(RUNS):
        for mode in MODES:
            sps[mode].append(steps_per_second(lagrangec, spec, t_end, mode, env))
    rows = []
    for mode in MODES:
        per_step = (instructions(exe, 2, mode) - instructions(exe, 1, mode)) / 1000
        rows.append({"mode": mode, "steps_per_s": measure.median(sps[mode]), "runs": sps[mode],
                     "instructions_per_step": per_step})
        print(f"correction {mode}: {rows[-1]['steps_per_s']:.0f} steps/s, {per_step:.0f} instructions/step",
              file=sys.stderr, flush=True)
    return {"system": "10-link chain (Cartesian)", "steps": round(t_end / 1e-3), "rows": rows}


def report(res):
    r = res.get("correction")
    if not r:
        return []
    none = r["rows"][0]
    out = ["\n## Correction cost (issue 14)\n",
           f"{r['system']}, RK4, h = 1e-3, {r['steps']} steps: steps/s from `simulate`'s summary, median of {RUNS} "
           "rounds run interleaved (none, velocity, full, none, ...); instructions per step by callgrind over the "
           "whole program (rhs, correction, the monitor). Targets: velocity >= 0.8x and full >= 0.6x the steps/s "
           "of none.\n",
           "| correction | steps/s | x none | instructions/step | x none (instructions) |",
           "|---|---:|---:|---:|---:|"]
    for row in r["rows"]:
        out.append(f"| {row['mode']} | {row['steps_per_s']:.0f} | {row['steps_per_s'] / none['steps_per_s']:.2f} | "
                   f"{row['instructions_per_step']:.0f} | "
                   f"{none['instructions_per_step'] / row['instructions_per_step']:.2f} |")
    return out
