"""arm3d_bench.py — the spatial arm of spatial_arm.py (joint axes alternating z and y, full inertia tensors; issue
15, item 5): `lagrangec generate` time with and without the Jacobians, the generated rhs in instructions against
MuJoCo's mj_forward on the same arm (test_mujoco_oracle.c checks they are the same system), and q_N'' at the
arm's initial state on both sides."""
import os
import re
import sys

import count_ops
import measure
import mujoco_bench
import spatial_arm

HERE = os.path.dirname(os.path.abspath(__file__))
GRID, QUICK_GRID = (6, 8, 10, 12, 20), (6, 8)
RUNS = 3  # generate runs per case, median
LIMIT = 300  # wall seconds per generate
CALLS = 20
COMMANDS = [
    "/usr/bin/time -f '%e %M %U %S' lagrangec generate [--no-jacobian] arm3d_N.toml -o DIR   # median of 3, cpu",
    "valgrind --tool=callgrind --toggle-collect=bench_call RHS_HARNESS calls 20   # arm3d_N_rhs, -O2",
    "BENCH_MJCF=arm_mN.xml MUJOCO_HARNESS calls 20                               # mj_forward on the same arm",
]


def generate(lagrangec, spec, out, flags):
    """Median cpu (user + system) and peak memory of RUNS runs; the failure's message or None past the limit."""
    runs = []
    for _ in range(RUNS):
        r = measure.bounded([lagrangec, "generate", spec, "-o", out] + flags, LIMIT)
        if r.get("timeout"):
            return None
        if r["status"] != 0:  # lagrangec's message, without its position and the caret lines under it
            lines = [line for line in r["stderr"].splitlines() if "error: " in line] or [f"exit {r['status']}"]
            return {"failed": re.sub(r"^\S+:\d+:\d+: error: ", "", lines[0])[:200]}
        runs.append(r)
    return {"cpu": measure.median([r["cpu"] for r in runs]), "wall": measure.median([r["wall"] for r in runs]),
            "peak_mib": measure.median([r["peak_mib"] for r in runs])}


def case(ctx, tools, n):
    work, lagrangec = ctx["work"], ctx["lagrangec"]
    name = f"arm3d_{n}"
    spec, xml = f"{work}/{name}.toml", f"{work}/arm_m{n}.xml"
    with open(spec, "w") as f:
        f.write(spatial_arm.spec(n, name))
    with open(xml, "w") as f:
        f.write(spatial_arm.mjcf(n, f"arm_m{n}"))
    out = f"{work}/{name}"
    os.makedirs(f"{out}/jac", exist_ok=True)
    row = {"n": n, "jacobian": generate(lagrangec, spec, f"{out}/jac", [])}
    row["generate"] = generate(lagrangec, spec, out, ["--no-jacobian"])
    if not row["generate"] or "failed" in row["generate"]:
        return row
    source = f"{out}/{name}.c"
    row["ops"] = count_ops.count_function(source, f"{name}_kkt_entries")
    rhs = f"{out}/rhs"
    mujoco_bench.rhs_harness(name, source, out, rhs)
    row["ir"] = measure.callgrind_ir([rhs, "calls", str(CALLS)], "bench_call") / CALLS
    row["value"] = float(measure.output([rhs, "value"]))
    mj_rhs, mj_run = tools
    env = dict(os.environ, BENCH_MJCF=xml)
    row["mujoco_ir"] = measure.callgrind_ir([mj_rhs, "calls", str(CALLS)], "bench_call", env=env) / CALLS
    row["mujoco_value"] = float(measure.output([mj_run, xml, "qacc"]).split()[-1])
    return row


def section(ctx, res):
    work = os.path.join(ctx["work"], "arm3d")
    os.makedirs(work, exist_ok=True)
    ctx = dict(ctx, work=work)
    tools = mujoco_bench.build_mujoco(work)
    rows = []
    for n in QUICK_GRID if ctx["quick"] else GRID:
        rows.append(case(ctx, tools, n))
        print(f"arm3d N={n:2}: {describe(rows[-1])}", file=sys.stderr, flush=True)
    return rows


def seconds(g):
    if g is None:
        return f"> {LIMIT} s"
    if "failed" in g:
        return g["failed"]
    return f"{g['cpu']:.2f} s ({g['peak_mib']:.0f} MiB)"


def describe(row):
    parts = [f"generate {seconds(row['generate'])}", f"with Jacobians {seconds(row['jacobian'])}"]
    if "ir" in row:
        parts.append(f"rhs {row['ir']:.0f} Ir, mj_forward {row['mujoco_ir']:.0f} Ir")
    return ", ".join(parts)


def report(res):
    rows = res.get("arm3d")
    if not rows:
        return []
    out = ["\n## A spatial arm of bodies\n",
           "`tests/bench/spatial_arm.py`: N links turning about z and y in turn, in relative joint angles, each a "
           "body with a full inertia tensor (products nonzero), gravity −g N.z; M, k and the Jacobian's M q'' + k come "
           "from Newton–Euler over the frame tree (issue 15, item 5). `generate`: cpu (user + system), median of 3; *ops*: "
           "operations in `NAME_kkt_entries` (count_ops.py); rhs and mj_forward in instructions per call "
           "(callgrind, `cc -O2`); q_N'' at the initial state (MuJoCo's keyframe) on both sides.\n",
           "| N | generate --no-jacobian | generate (with Jacobians) | kkt_entries ops | rhs Ir | mj_forward Ir "
           "| q_N'' lagrangec | q_N'' MuJoCo |",
           "|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        cells = [seconds(r["generate"]), seconds(r["jacobian"])]
        if "ir" in r:
            cells += [str(r["ops"]), f"{r['ir']:.0f}", f"{r['mujoco_ir']:.0f}", f"{r['value']:.12g}",
                      f"{r['mujoco_value']:.12g}"]
        else:
            cells += [""] * 5
        out.append(f"| {r['n']} | " + " | ".join(cells) + " |")
    return out
