"""inverse_dynamics_bench.py — instructions of one generated NAME_inverse_dynamics call against one NAME_rhs (the
forward dynamics) and one MuJoCo mj_inverse, on the spatial arms of spatial_arm.py (the same system in both tools:
test_mujoco_oracle.c checks tau against mj_inverse), counted by callgrind over CALLS calls at -O2, the flags
`lagrangec simulate` compiles with. The three agree on tau at the state measured, or nothing is printed.

Usage: /usr/bin/python3 inverse_dynamics_bench.py LAGRANGEC [N...]   (default N: 6 12 20)
As bench.py's section `inverse`: tests/bench/run.sh BUILD --only inverse.
"""
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import measure  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
CALLS = 20
GRID, QUICK_GRID = (6, 12, 20), (6,)
COMMANDS = [
    "valgrind --tool=callgrind --toggle-collect=run_inverse HARNESS arm_N.xml   # arm_inverse_dynamics, -O2, 20 calls",
    "  ... --toggle-collect=run_rhs, --toggle-collect=run_mj_inverse           # arm_rhs and mj_inverse, the same calls",
]

HARNESS = r"""
#include "arm.h"
#include <math.h>
#include <mujoco/mujoco.h>
#include <stdio.h>
/* Each side in a function of its own, for callgrind's --toggle-collect. */
__attribute__((noinline)) void run_inverse(const double *x, const double *a, double *tau)
{ arm_inverse_dynamics(0.0, x, 0, arm_param_defaults, a, tau); }
__attribute__((noinline)) void run_rhs(const double *x, double *dxdt, double *w)
{ arm_rhs(0.0, x, 0, arm_param_defaults, 0.0, 0.0, dxdt, 0, w); }
__attribute__((noinline)) void run_mj_inverse(const mjModel *m, mjData *d) { mj_inverse(m, d); }
int main(int argc, char **argv)
{
    char error[1000];
    mjModel *m = argc > 1 ? mj_loadXML(argv[1], 0, error, sizeof error) : 0;
    if (!m) return fprintf(stderr, "%s\n", error), 1;
    mjData *d = mj_makeData(m);
    double x[ARM_NX], a[ARM_NQ], tau[ARM_NQ], dxdt[ARM_NX], w[ARM_NWORK], scale = 1.0, worst = 0.0;
    for (int i = 0; i < ARM_NQ; i++) {
        x[i] = d->qpos[i] = 0.1 * (i + 1);
        x[ARM_NQ + i] = d->qvel[i] = 0.2 * i - 0.3;
        a[i] = d->qacc[i] = 0.5 - 0.15 * i;
    }
    mj_inverse(m, d);  /* first touch outside the count */
    for (int k = 0; k < CALLS; k++) {
        run_inverse(x, a, tau);
        run_rhs(x, dxdt, w);
        run_mj_inverse(m, d);
    }
    for (int i = 0; i < ARM_NQ; i++) scale = fmax(scale, fabs(d->qfrc_inverse[i]));
    for (int i = 0; i < ARM_NQ; i++) worst = fmax(worst, fabs(tau[i] - d->qfrc_inverse[i]) / scale);
    printf("%.3g\n", worst);
    return worst <= 1e-9 ? 0 : 1;
}
"""


def count(n, lagrangec, work):
    spec, mjcf, out = os.path.join(work, "arm.toml"), os.path.join(work, "arm.xml"), os.path.join(work, "gen")
    arm = os.path.join(HERE, "spatial_arm.py")
    subprocess.run([sys.executable, "-B", arm, "spec", str(n), spec, "arm"], check=True)
    subprocess.run([sys.executable, "-B", arm, "mjcf", str(n), mjcf], check=True)
    subprocess.run([lagrangec, "generate", spec, "-o", out, "--no-jacobian"], check=True, capture_output=True)
    source, exe = os.path.join(work, "harness.c"), os.path.join(work, "harness")
    with open(source, "w") as f:
        f.write(f"#define CALLS {CALLS}\n" + HARNESS)
    subprocess.run(["cc", "-std=c11", "-O2", "-I", out, source, os.path.join(out, "arm.c"), "-lmujoco", "-lm",
                    "-o", exe], check=True)
    agree = subprocess.run([exe, mjcf], capture_output=True, text=True)
    if agree.returncode != 0:
        raise SystemExit(f"{n} links: tau differs from mj_inverse's by {agree.stdout.strip()} (relative)")
    per_call = {f: measure.callgrind_ir([exe, mjcf], f) / CALLS for f in ("run_inverse", "run_rhs", "run_mj_inverse")}
    return per_call, float(agree.stdout)


def section(ctx, res):
    rows = []
    for n in QUICK_GRID if ctx["quick"] else GRID:
        with tempfile.TemporaryDirectory(prefix="lagrangec-inverse-", dir=ctx["work"]) as work:
            ir, difference = count(n, ctx["lagrangec"], work)
        rows.append({"n": n, "ir": ir, "difference": difference})
        print(f"inverse N={n:2}: {ir['run_inverse']:.0f} Ir", file=sys.stderr, flush=True)
    return rows


def table(rows):
    out = ["| links | NAME_inverse_dynamics | per link | NAME_rhs | mj_inverse | inverse / rhs "
           "| inverse / mj_inverse | tau vs mj_inverse |",
           "|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        ir = r["ir"]
        out.append(f"| {r['n']} | {ir['run_inverse']:.0f} | {ir['run_inverse'] / r['n']:.0f} | {ir['run_rhs']:.0f} | {ir['run_mj_inverse']:.0f} | "
                   f"{ir['run_inverse'] / ir['run_rhs']:.2f} | {ir['run_inverse'] / ir['run_mj_inverse']:.2f} | "
                   f"{r['difference']:.1e} |")
    return out


def report(res):
    rows = res.get("inverse")
    if not rows:
        return []
    return ["\n## Inverse dynamics against mj_inverse (issue 27)\n",
            "The spatial arms of `tests/bench/spatial_arm.py` (as in the section above), generated with "
            "`--no-jacobian`: instructions per call (callgrind, `cc -O2`, 20 calls) of `NAME_inverse_dynamics` "
            "(tau for the state and q''), of the forward `NAME_rhs`, and of MuJoCo's `mj_inverse` on the same arm; "
            "the last column is the largest difference of tau from mj_inverse's, relative to its largest entry. "
            "*per link*: flat for an O(n) recursion; the rhs, which solves M q'' = ..., grows faster.\n"] + table(rows)


def main(argv):
    if not argv:
        raise SystemExit(__doc__)
    lagrangec, links = argv[0], [int(a) for a in argv[1:]] or list(GRID)
    rows = []
    for n in links:
        with tempfile.TemporaryDirectory(prefix="lagrangec-inverse-") as work:
            ir, difference = count(n, lagrangec, work)
        rows.append({"n": n, "ir": ir, "difference": difference})
    print("\n".join(table(rows)))


if __name__ == "__main__":
    main(sys.argv[1:])
