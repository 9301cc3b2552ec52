#!/usr/bin/python3
"""docs/singular_table.py — the table of docs/singular.md: IFToMM A02 (N = 2,
10, 40) and A04 through `lagrangec simulate`, as the benchmark library
measures them (400 output steps), B0's x against the exact one-degree-of-
freedom motion (scipy, rtol 1e-13). Usage: docs/singular_table.py LAGRANGEC"""
import csv, json, math, subprocess, sys, tempfile, os
import numpy as np
from scipy.integrate import solve_ivp

LGC = sys.argv[1]
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SPECS = {2: "specs/a02_n2.toml", 10: "tests/examples/specs/a02_n10.toml", 40: "tests/examples/specs/a02_n40.toml"}


def exact_b0x(n, times):
    inertia, torque = (n + 1) / 3 + n, ((n + 1) / 2 + n) * 9.81
    sol = solve_ivp(lambda t, y: [y[1], -torque / inertia * math.cos(y[0])], (0, times[-1]),
                    [math.pi / 2, -1.0], t_eval=times, rtol=1e-13, atol=1e-13, method="DOP853")
    return np.cos(sol.y[0])


def run(spec, t_end, options):
    with tempfile.TemporaryDirectory() as d:
        out, js = os.path.join(d, "run.csv"), os.path.join(d, "run.json")
        cmd = [LGC, "simulate", spec, "--t-end", str(t_end), "--sample", str(t_end / 400), "--out", out,
               "--summary-json", js, "--quiet", "--project", "full", "--metric", "mass"] + options
        subprocess.run(cmd, check=True, cwd=ROOT)
        rows = list(csv.DictReader(open(out)))
        return rows, json.load(open(js)), " ".join(["lagrangec"] + cmd[1:3] + cmd[3:5] + cmd[5:7] + cmd[11:])


def main():
    print("| case | command (lagrangec simulate SPEC ...) | max B0x error | energy drift (rel.) | max abs phi | "
          "steps | rhs | integration s |")
    print("|---|---|---|---|---|---|---|---|")
    for n, spec in SPECS.items():
        for opts in (["--rtol", "1e-8", "--atol", "1e-10"], ["--rtol", "1e-10", "--atol", "1e-12"], ["--dt", "1e-3"]):
            rows, js, cmd = run(spec, 20, opts)
            t = np.array([float(r["t"]) for r in rows])
            b0x = np.cos(np.array([float(r["th0"]) for r in rows]))
            err = np.max(np.abs(b0x - exact_b0x(n, t)))
            phi = js["max_phi"]
            print(f"| A02 N = {n} | `{' '.join(opts)}` | {err:.1e} | {js['energy_drift']:.1e} | {phi:.1e} | "
                  f"{js['steps']} | {js['rhs_evaluations']} | {js['wall_time']:.3f} |")
    for opts in (["--rtol", "1e-10", "--atol", "1e-12"], ["--dt", "1e-3"]):
        rows, js, cmd = run("specs/bricard.toml", 10, opts)
        phi = js["max_phi"]
        p3 = tuple(float(rows[-1][k]) for k in ("x3", "y3", "z3"))
        print(f"| A04 | `{' '.join(opts)}` | P3(10) = ({p3[0]:.7f}, {p3[1]:.7f}, {p3[2]:.7f}) | "
              f"{js['energy_drift']:.1e} | {phi:.1e} | {js['steps']} | {js['rhs_evaluations']} | {js['wall_time']:.3f} |")


main()
