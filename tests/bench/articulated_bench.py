"""articulated_bench.py — issue 28's grid: the spatial arm of spatial_arm.py and the planar chain of rod bodies in
relative angles (rod_chain.py's `bodies`) at N = 5, 10, 20, 50, 100 links: which form the generated rhs takes
(M and its solve, or the articulated-body recursion), its instructions and time per call against MuJoCo's
mj_forward on the same model and against the ABA's operation count 599N - 495 (the issue's, for a spatial chain with
full 3x3 blocks), and the first `lagrangec simulate` (generate and compile on a cold cache) in CPU time and peak
memory at 20, 50 and 100 links, each within a time limit. Then the published robots of tests/urdf (issue 26: the
Franka Panda, the Unitree A1 and G1 on floating bases), each URDF read by both tools, at their initial state (at rest,
every joint at 0; MuJoCo's joint limits off, as lagrangec keeps them as data): the same counts and the first simulate.

Usage, alone: /usr/bin/python3 articulated_bench.py LAGRANGEC [N...]   (or bench.py --only articulated)
"""
import os
import sys
import tempfile

import measure
import mujoco_bench
import rod_chain
import spatial_arm

HERE = os.path.dirname(os.path.abspath(__file__))
GRID, QUICK_GRID = (5, 10, 20, 50, 100), (5, 10)
FIRST_RUN = (20, 50, 100)
ROBOTS = ("panda", "a1", "g1")
LIMIT = 300  # wall seconds per generate and per first simulate (the machine is shared)
CALLS = 20
COMMANDS = [
    "lagrangec generate --no-jacobian SPEC -o DIR                         # within 300 s",
    "valgrind --tool=callgrind --toggle-collect=bench_call RHS_HARNESS calls 20; RHS_HARNESS ns   # NAME_rhs, cc -O2",
    "BENCH_MJCF=MODEL.xml MUJOCO_HARNESS calls 20; ... ns                   # mj_forward",
    "LAGRANGEC_CACHE=(empty) lagrangec simulate SPEC --dt 1e-3 --t-end 1e-3 --quiet   # CPU and peak, within 300 s",
]


def models(work, kind, n):
    """(name, spec path, MJCF path) of one model."""
    if kind == "arm":
        name, spec, xml = f"arm3d_{n}", f"{work}/arm3d_{n}.toml", f"{work}/arm_m{n}.xml"
        with open(spec, "w") as f:
            f.write(spatial_arm.spec(n, name))
        with open(xml, "w") as f:
            f.write(spatial_arm.mjcf(n, f"arm_m{n}"))
        return name, spec, xml
    name, spec = rod_chain.write(work, "bodies", n)
    _, xml = rod_chain.write(work, "mjcf", n)
    return name, spec, xml


def robot(name):
    """(file name, URDF path, the same path for MuJoCo) of a robot in tests/urdf."""
    urdf = os.path.join(HERE, "..", "urdf", f"{name}.urdf")
    return name, urdf, urdf


def case(ctx, tools, kind, n):
    work, lagrangec = ctx["work"], ctx["lagrangec"]
    name, spec, xml = robot(n) if kind == "robot" else models(work, kind, n)
    row = {"kind": kind, "n": n, "aba": 599 * n - 495 if kind != "robot" else None}
    out = f"{work}/{name}"
    g = measure.bounded([lagrangec, "generate", spec, "-o", out, "--no-jacobian"], LIMIT)
    if kind == "robot" and g.get("status") == 0:  # the model is named after the URDF's robot
        name = next(f[:-3] for f in os.listdir(out) if f.endswith(".md"))
    mj_rhs, _ = tools
    env = dict(os.environ, BENCH_MJCF=xml, **({"BENCH_NO_LIMITS": "1"} if kind == "robot" else {}))
    try:
        row["mujoco_ir"] = measure.callgrind_ir([mj_rhs, "calls", str(CALLS)], "bench_call", env=env) / CALLS
        row["mujoco_ns"] = float(measure.output([mj_rhs, "ns"], env=env))
    except RuntimeError as e:  # MuJoCo 2.2.2's XML reader stops at about 100 nested bodies
        row["mujoco_error"] = next((line for line in str(e).splitlines() if "Error=" in line), "failed")[:120]
    if g.get("timeout") or g["status"] != 0:
        row["generate"] = "timeout" if g.get("timeout") else f"exit {g['status']}"
        return row
    row["generate"] = {"cpu": g["cpu"], "peak_mib": g["peak_mib"]}
    source = f"{out}/{name}.c"
    with open(source) as f:
        row["form"] = "recursion" if "rhs by the articulated-body recursion" in f.read() else "dense"
    rhs = f"{out}/rhs"
    with open(f"{out}/{name}.h") as f:
        inputs = f"{name}_input_defaults" in f.read()
    mujoco_bench.rhs_harness(name, source, out, rhs, [f"-DBENCH_INPUTS={name}_input_defaults"] if inputs else [])
    row["ir"] = measure.callgrind_ir([rhs, "calls", str(CALLS)], "bench_call") / CALLS
    row["ns"] = float(measure.output([rhs, "ns"]))
    return row


def first_run(ctx, kind, n):
    _, spec, _ = robot(n) if kind == "robot" else models(ctx["work"], kind, n)
    with tempfile.TemporaryDirectory(prefix="lagrangec-first-") as cache:
        r = measure.bounded([ctx["lagrangec"], "simulate", spec, "--dt", "1e-3", "--t-end", "1e-3", "--quiet"], LIMIT,
                            env=dict(os.environ, LAGRANGEC_CACHE=cache))
    if r.get("timeout"):
        return {"kind": kind, "n": n, "result": f"> {LIMIT} s"}
    if r["status"] != 0:
        return {"kind": kind, "n": n, "result": f"exit {r['status']}"}
    return {"kind": kind, "n": n, "cpu": r["cpu"], "peak_mib": r["peak_mib"]}


def section(ctx, res):
    work = os.path.join(ctx["work"], "articulated")
    os.makedirs(work, exist_ok=True)
    ctx = dict(ctx, work=work)
    tools = mujoco_bench.build_mujoco(work)
    grid = QUICK_GRID if ctx["quick"] else GRID
    rows, firsts = [], []
    for kind in ("arm", "chain"):
        for n in grid:
            rows.append(case(ctx, tools, kind, n))
            print(f"articulated {kind} N={n}: {rows[-1]}", file=sys.stderr, flush=True)
    robots = () if ctx["quick"] else ROBOTS
    for name in robots:
        rows.append(case(ctx, tools, "robot", name))
        print(f"articulated robot {name}: {rows[-1]}", file=sys.stderr, flush=True)
    for kind in ("arm", "chain"):
        for n in FIRST_RUN:
            if n in grid:
                firsts.append(first_run(ctx, kind, n))
                print(f"first run {kind} N={n}: {firsts[-1]}", file=sys.stderr, flush=True)
    for name in robots:
        firsts.append(first_run(ctx, "robot", name))
        print(f"first run robot {name}: {firsts[-1]}", file=sys.stderr, flush=True)
    return {"rows": rows, "first": firsts}


KIND = {"arm": "spatial arm", "chain": "planar chain (rod bodies, relative angles)", "robot": "URDF"}


def report(res):
    r = res.get("articulated")
    if not r:
        return []
    out = ["\n## O(N) forward dynamics: the articulated-body recursion\n",
           "`tests/bench/articulated_bench.py` (issue 28): *form* is what `generate` chose for rhs by counting "
           "operations (M and its solve, or the articulated-body recursion); rhs and `mj_forward` in instructions "
           "per call (callgrind, `cc -O2`) and ns per call (median of 5 runs, a shared machine); ABA the issue's "
           f"operation count 599N − 495. `generate --no-jacobian` within {LIMIT} s. The URDF rows are tests/urdf's robots "
           "(N their name) at rest with every joint at 0, MuJoCo's joint limits off.\n",
           "| model | N | generate | form | rhs Ir | rhs ns | mj_forward Ir | mj_forward ns | ABA ops | rhs Ir per ABA op "
           "| time / mj_forward |",
           "|---|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|"]
    notes = []
    for row in r["rows"]:
        g = row["generate"]
        gen = g if isinstance(g, str) else f"{g['cpu']:.1f} s, {g['peak_mib']:.0f} MiB"
        if "mujoco_error" in row:
            notes.append(f"MuJoCo could not load the {KIND[row['kind']]} at N = {row['n']}: `{row['mujoco_error']}`.")
            row = dict(row, mujoco_ir=float("nan"), mujoco_ns=float("nan"))
        if "ir" in row:
            aba = [str(row["aba"]), f"{row['ir'] / row['aba']:.2f}"] if row["aba"] else ["", ""]
            cells = [gen, row["form"], f"{row['ir']:.0f}", f"{row['ns']:.0f}", f"{row['mujoco_ir']:.0f}",
                     f"{row['mujoco_ns']:.0f}"] + aba + [f"{row['ns'] / row['mujoco_ns']:.2f}"]
        else:
            cells = [gen + (f" (> {LIMIT} s)" if gen == "timeout" else ""), "", "", "", f"{row['mujoco_ir']:.0f}",
                     f"{row['mujoco_ns']:.0f}", str(row["aba"] or ""), "", ""]
        cells = ["—" if c == "nan" else c for c in cells]  # MuJoCo's cells where it could not load the model
        out.append(f"| {KIND[row['kind']]} | {row['n']} | " + " | ".join(cells) + " |")
    out += [""] + notes if notes else []
    if r["first"]:
        out += ["", "First `lagrangec simulate` on a cold cache (generate with the Jacobian where the form has one, "
                    "compile, a 1 ms run): CPU of the process and its children, peak memory.\n",
                "| model | N | CPU | peak |", "|---|---:|---:|---:|"]
        for f in r["first"]:
            cells = [f["result"], ""] if "result" in f else [f"{f['cpu']:.1f} s", f"{f['peak_mib']:.0f} MiB"]
            out.append(f"| {KIND[f['kind']]} | {f['n']} | " + " | ".join(cells) + " |")
    return out


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    grid = tuple(int(a) for a in sys.argv[2:]) or GRID
    with tempfile.TemporaryDirectory(prefix="lagrangec-articulated-") as w:
        GRID = grid
        result = section({"lagrangec": sys.argv[1], "work": w, "quick": False}, {})
    print("\n".join(report({"articulated": result})))
