"""articulated_bench.py — issue 28's grid: the spatial arm of spatial_arm.py and the planar chain of rod bodies in
relative angles (rod_chain.py's `bodies`) at N = 5, 10, 20, 50, 100 links: which form the generated rhs takes
(M and its solve, or the articulated-body recursion), its instructions and time per call against MuJoCo's
mj_forward and Simbody 3.7's forward dynamics (simbody_adapter.cpp) on the same model and against the ABA's operation count 599N - 495 (the issue's, for a spatial chain with
full 3x3 blocks), and the first `lagrangec simulate` (generate and compile on a cold cache) in CPU time and peak
memory at 20, 50 and 100 links, each within a time limit. Simbody's q'' must equal the rhs's at the
benchmark state to TOLERANCE (relative to the largest |q''|), or the run stops: a comparison of two different
models is not written; MuJoCo's last q'' must equal the rhs's to MUJOCO_TOLERANCE. Then the published robots of tests/urdf (issue 26: the
Franka Panda, the Unitree A1 and G1 on floating bases), each URDF read by both tools, at their initial state (at rest,
every joint at 0; MuJoCo's joint limits off, as lagrangec keeps them as data): the same counts and the first simulate.

Usage, alone: /usr/bin/python3 articulated_bench.py LAGRANGEC [N...]   (or bench.py --only articulated)
"""
import os
import shlex
import subprocess
import sys
import tempfile

import measure
import mjcf_urdf
import mujoco_bench
import rod_chain
import spatial_arm

HERE = os.path.dirname(os.path.abspath(__file__))
GRID, QUICK_GRID = (5, 10, 20, 50, 100), (5, 10)
FIRST_RUN = (20, 50, 100)
ROBOTS = ("panda", "a1", "g1")
LIMIT = 300  # wall seconds per generate and per first simulate (the machine is shared)
CALLS = 20
TOLERANCE = 1e-10  # Simbody's q'' against the rhs's, relative to the largest |q''|
MUJOCO_TOLERANCE = 1e-6  # MuJoCo's last q'' against the rhs's, the same way
COMMANDS = [
    "lagrangec generate --no-jacobian SPEC -o DIR                         # within 300 s",
    "valgrind --tool=callgrind --toggle-collect=bench_call RHS_HARNESS calls 20; RHS_HARNESS ns   # NAME_rhs, cc -O2",
    "BENCH_MJCF=MODEL.xml MUJOCO_HARNESS calls 20; ... ns; ... value         # mj_forward; its last q''",
    "BENCH_MJCF=MODEL.urdf BENCH_STATE=MODEL.state MUJOCO_HARNESS ...      # past 100 nested bodies (mjcf_urdf.py)",
    "BENCH_SIMBODY=MODEL.simbody SIMBODY_HARNESS calls 20; ... ns          # set q, u; realize(Stage::Acceleration)",
    "BENCH_SIMBODY=MODEL.simbody simbody_qdd qdd; DXDT_PRINTER            # q'' of both, compared to 1e-10",
    "LAGRANGEC_CACHE=(empty) lagrangec simulate SPEC --dt 1e-3 --t-end 1e-3 --quiet   # CPU and peak, within 300 s",
]


def models(work, kind, n):
    """(name, spec path, MJCF path, Simbody description path) of one model."""
    simbody = f"{work}/{kind}{n}.simbody"
    with open(simbody, "w") as f:
        f.write((spatial_arm if kind == "arm" else rod_chain).simbody(n))
    if kind == "arm":
        name, spec, xml = f"arm3d_{n}", f"{work}/arm3d_{n}.toml", f"{work}/arm_m{n}.xml"
        with open(spec, "w") as f:
            f.write(spatial_arm.spec(n, name))
        with open(xml, "w") as f:
            f.write(spatial_arm.mjcf(n, f"arm_m{n}"))
        return name, spec, xml, simbody
    name, spec = rod_chain.write(work, "bodies", n)
    _, xml = rod_chain.write(work, "mjcf", n)
    return name, spec, xml, simbody


def robot(name):
    """(file name, URDF path, the same path for MuJoCo, None: Simbody reads no URDF) of a robot in tests/urdf."""
    urdf = os.path.join(HERE, "..", "urdf", f"{name}.urdf")
    return name, urdf, urdf, None


def build_simbody(work):
    """Simbody's two programs: bench_rhs.c around simbody_adapter.cpp, and simbody_qdd (q'' at the state);
    {'error': why} when Simbody (Debian's libsimbody-dev) is not there or they do not build."""
    try:
        flags = subprocess.run(["pkg-config", "--cflags", "--libs", "simbody"], capture_output=True, text=True)
        if flags.returncode != 0:
            return {"error": "not installed (pkg-config finds no simbody: apt-get install libsimbody-dev)"}
        flags = shlex.split(flags.stdout)
        version = subprocess.run(["pkg-config", "--modversion", "simbody"], capture_output=True, text=True).stdout
        tools = {"rhs": f"{work}/simbody_rhs", "qdd": f"{work}/simbody_qdd", "version": version.strip()}
        cxx = os.environ.get("CXX", "c++")
        measure.output([mujoco_bench.CC] + mujoco_bench.CFLAGS + ["-c", f"{HERE}/bench_rhs.c", "-o",
                                                                   f"{work}/bench_rhs.o"])
        measure.output([cxx, "-O2", f"-I{HERE}", f"{HERE}/simbody_adapter.cpp", f"{work}/bench_rhs.o", "-o",
                        tools["rhs"]] + flags)
        measure.output([cxx, "-O2", "-DSIMBODY_QDD", f"-I{HERE}", f"{HERE}/simbody_adapter.cpp", "-o", tools["qdd"]]
                       + flags)
        return tools
    except (OSError, RuntimeError) as e:
        return {"error": "did not build: " + last_words(e)}


def last_words(error):
    """The line of a failed command's RuntimeError that says why: a compiler's error, an exception's what(), or
    its last line."""
    lines = [line.strip() for line in str(error).splitlines() if line.strip()] or ["?"]
    line = next((line for line in lines if "error" in line.lower() or "what()" in line), lines[-1])
    return line.replace("|", "/")[:160]  # it goes into a table's cell


def simbody_case(simbody, description, row):
    """Simbody's instructions, ns and q'' on one model into row (or row['simbody_error'])."""
    if "error" in simbody:
        row["simbody_error"] = simbody["error"]
        return
    env = dict(os.environ, BENCH_SIMBODY=description)
    try:
        row["simbody_ir"] = measure.callgrind_ir([simbody["rhs"], "calls", str(CALLS)], "bench_call", env=env) / CALLS
        row["simbody_ns"] = float(measure.output([simbody["rhs"], "ns"], env=env))
        row["simbody_qdd"] = [float(v) for v in measure.output([simbody["qdd"], "qdd"], env=env).split()]
    except RuntimeError as e:
        row["simbody_error"] = "failed: " + last_words(e)


def check_simbody(row, qdd):
    """The largest difference of Simbody's q'' from the rhs's, relative to the largest |q''|, into row; past
    TOLERANCE the run stops (the two would not be one model)."""
    theirs = row.get("simbody_qdd")
    if theirs is None:
        return
    if len(theirs) != len(qdd):
        sys.exit(f"articulated_bench: {row['kind']} N={row['n']}: Simbody has {len(theirs)} accelerations, "
                 f"the rhs {len(qdd)}")
    scale = max(abs(a) for a in qdd)
    row["simbody_diff"] = max(abs(a - b) for a, b in zip(qdd, theirs)) / scale
    print(f"articulated {row['kind']} N={row['n']}: q'' of Simbody against the rhs: {row['simbody_diff']:.2e} "
          f"relative (max |q''| {scale:.3g})", file=sys.stderr, flush=True)
    if not row["simbody_diff"] <= TOLERANCE:
        sys.exit(f"articulated_bench: {row['kind']} N={row['n']}: Simbody's q'' differs from lagrangec's rhs by "
                 f"{row['simbody_diff']:.3e} relative (> {TOLERANCE:g}): not the same model, nothing written.\n"
                 f"  rhs:     {qdd}\n  Simbody: {theirs}")


def case(ctx, tools, simbody, kind, n):
    work, lagrangec = ctx["work"], ctx["lagrangec"]
    name, spec, xml, description = robot(n) if kind == "robot" else models(work, kind, n)
    row = {"kind": kind, "n": n, "aba": 599 * n - 495 if kind != "robot" else None}
    out = f"{work}/{name}"
    g = measure.bounded([lagrangec, "generate", spec, "-o", out, "--no-jacobian"], LIMIT)
    if kind == "robot" and g.get("status") == 0:  # the model is named after the URDF's robot
        name = next(f[:-3] for f in os.listdir(out) if f.endswith(".md"))
    mujoco_case(tools, kind, xml, row)
    if description:
        simbody_case(simbody, description, row)
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
    flags = [f"-DBENCH_INPUTS={name}_input_defaults"] if inputs else []
    objects = f"{out}/{name}.o"  # compiled once, for the harness and for the printer of dx/dt
    measure.output([mujoco_bench.CC] + mujoco_bench.CFLAGS + [f"-I{out}", "-c", source, "-o", objects])
    mujoco_bench.rhs_harness(name, objects, out, rhs, flags)
    row["ir"] = measure.callgrind_ir([rhs, "calls", str(CALLS)], "bench_call") / CALLS
    row["ns"] = float(measure.output([rhs, "ns"]))
    if description:
        printer = f"{out}/dxdt"
        measure.output([mujoco_bench.CC] + mujoco_bench.CFLAGS + flags + [
            f"-I{HERE}", f"-I{out}", "-include", f"{name}.h", f"-DMODEL={name}", f"-DUMODEL={name.upper()}",
            "-DBENCH_PRINT_DXDT", f"{HERE}/lagrangec_adapter.c", objects, "-lm", "-o", printer])
        dxdt = [float(v) for v in measure.output([printer]).split()]
        check_simbody(row, dxdt[len(dxdt) // 2:])  # x = (q, q'): its derivative's second half is q''
        check_mujoco(row, dxdt[len(dxdt) // 2:])
    return row


def mujoco_case(tools, kind, xml, row):
    """mj_forward's instructions, ns and last q'' on one model into row (or row['mujoco_error']). MuJoCo 2.2.2's
    XML reader refuses bodies nested past 100 deep: such a chain is loaded from the same model as URDF
    (mjcf_urdf.py), whose links are not nested."""
    mj_rhs, _ = tools
    env = dict(os.environ, BENCH_MJCF=xml, **({"BENCH_NO_LIMITS": "1"} if kind == "robot" else {}))
    for attempt in ("MJCF", "URDF"):
        try:
            row["mujoco_ir"] = measure.callgrind_ir([mj_rhs, "calls", str(CALLS)], "bench_call", env=env) / CALLS
            row["mujoco_ns"] = float(measure.output([mj_rhs, "ns"], env=env))
            row["mujoco_qdd_last"] = float(measure.output([mj_rhs, "value"], env=env))
            if attempt == "URDF":
                row["mujoco_from"] = "URDF"
            return
        except RuntimeError as e:
            row["mujoco_error"] = next((line for line in str(e).splitlines() if "Error=" in line), "failed")[:120]
            if kind == "robot" or "XML_ELEMENT_DEPTH_EXCEEDED" not in row["mujoco_error"]:
                return
            urdf, state = mjcf_urdf.write(xml)
            env.update(BENCH_MJCF=urdf, BENCH_STATE=state)
    row.pop("mujoco_qdd_last", None)


def check_mujoco(row, qdd):
    """MuJoCo's last q'' against the rhs's, relative to the largest |q''|, into row; past MUJOCO_TOLERANCE the run
    stops. MuJoCo diagonalises a full inertia itself, to about 1e-7, hence the looser bound."""
    if "mujoco_qdd_last" not in row:
        return
    row["mujoco_diff"] = abs(row["mujoco_qdd_last"] - qdd[-1]) / max(abs(a) for a in qdd)
    if not row["mujoco_diff"] <= MUJOCO_TOLERANCE:
        sys.exit(f"articulated_bench: {row['kind']} N={row['n']}: MuJoCo's last q'' {row['mujoco_qdd_last']!r} "
                 f"differs from the rhs's {qdd[-1]!r} by {row['mujoco_diff']:.3e} relative (> {MUJOCO_TOLERANCE:g}): "
                 f"not the same model, nothing written.")


def first_run(ctx, kind, n):
    _, spec, _, _ = robot(n) if kind == "robot" else models(ctx["work"], kind, n)
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
    simbody = build_simbody(work)
    if "error" in simbody:
        print(f"articulated: Simbody {simbody['error']}", file=sys.stderr, flush=True)
    grid = QUICK_GRID if ctx["quick"] else GRID
    rows, firsts = [], []
    for kind in ("arm", "chain"):
        for n in grid:
            rows.append(case(ctx, tools, simbody, kind, n))
            print(f"articulated {kind} N={n}: {rows[-1]}", file=sys.stderr, flush=True)
    robots = () if ctx["quick"] else ROBOTS
    for name in robots:
        rows.append(case(ctx, tools, simbody, "robot", name))
        print(f"articulated robot {name}: {rows[-1]}", file=sys.stderr, flush=True)
    for kind in ("arm", "chain"):
        for n in FIRST_RUN:
            if n in grid:
                firsts.append(first_run(ctx, kind, n))
                print(f"first run {kind} N={n}: {firsts[-1]}", file=sys.stderr, flush=True)
    for name in robots:
        firsts.append(first_run(ctx, "robot", name))
        print(f"first run robot {name}: {firsts[-1]}", file=sys.stderr, flush=True)
    return {"rows": rows, "first": firsts, "simbody": simbody.get("version") or simbody["error"]}


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
    notes, from_urdf, refusal = [], [], ""
    for row in r["rows"]:
        g = row["generate"]
        gen = g if isinstance(g, str) else f"{g['cpu']:.1f} s, {g['peak_mib']:.0f} MiB"
        if row.get("mujoco_from") == "URDF":
            from_urdf.append(f"the {KIND[row['kind']]} at N = {row['n']}")
            refusal = row["mujoco_error"]
        elif "mujoco_error" in row:
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
    if from_urdf:
        notes.append(f"MuJoCo refused the MJCF of {' and of '.join(from_urdf)} (`{refusal}`: tinyxml2's limit of 100 "
                     "nested elements); those rows' MuJoCo figures are of the same model read from URDF "
                     "(`tests/bench/mjcf_urdf.py`: the links named, not nested).")
    diffs = [row["mujoco_diff"] for row in r["rows"] if "mujoco_diff" in row]
    if diffs:
        notes.append(f"MuJoCo's last q'' agreed with the rhs's to at most {max(diffs):.1e} relative to the largest "
                     f"|q''| on every arm and chain row it ran (the run stops past {MUJOCO_TOLERANCE:g}).")
    out += [""] + notes if notes else []
    out += simbody_table(r)
    if r["first"]:
        out += ["", "First `lagrangec simulate` on a cold cache (generate with the Jacobian where the form has one, "
                    "compile, a 1 ms run): CPU of the process and its children, peak memory.\n",
                "| model | N | CPU | peak |", "|---|---:|---:|---:|"]
        for f in r["first"]:
            cells = [f["result"], ""] if "result" in f else [f"{f['cpu']:.1f} s", f"{f['peak_mib']:.0f} MiB"]
            out.append(f"| {KIND[f['kind']]} | {f['n']} | " + " | ".join(cells) + " |")
    return out


def simbody_table(r):
    """The arm's and the chain's rows against Simbody: its forward dynamics' instructions and time, the ratios of
    lagrangec's rhs and of mj_forward to them, and how far its q'' is from the rhs's."""
    rows = [row for row in r["rows"] if row["kind"] != "robot"]
    version = r.get("simbody", "?")
    if all("simbody_error" in row for row in rows):
        return ["", f"Simbody: {rows[0]['simbody_error'] if rows else version}; its comparison was not measured."]
    out = ["", f"Against Simbody {version} (Debian's `libsimbody-dev`, `simbody_adapter.cpp`): the same bodies as "
               "pins (`MobilizedBody::Pin`, the y axis a pin's z turned by −π/2 about x), gravity by "
               "`Force::UniformGravity`; one call sets q and u (invalidating every stage from Position on) and "
               "realizes the state to `Stage::Acceleration`, as `mj_forward` recomputes everything from qpos and "
               "qvel (callgrind counts Simbody's libraries as Debian built them). *q'' vs rhs*: the largest "
               "difference of Simbody's q'' from the rhs's at the benchmark state, relative to the largest |q''| "
               f"(the run stops past {TOLERANCE:g}). Measured in the same run as the table above.\n",
           "| model | N | Simbody Ir | Simbody ns | rhs Ir / Simbody | rhs time / Simbody | mj_forward Ir / Simbody "
           "| mj_forward time / Simbody | q'' vs rhs |",
           "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]

    def ratio(row, key, unit):
        """row[key] over Simbody's, or — where that side has no figure (no rhs, MuJoCo could not load it)."""
        return f"{row[key] / row['simbody_' + unit]:.2f}" if key in row else "—"

    for row in rows:
        if "simbody_error" in row:
            cells = [f"Simbody {row['simbody_error']}"] + [""] * 6
        else:
            cells = [f"{row['simbody_ir']:.0f}", f"{row['simbody_ns']:.0f}", ratio(row, "ir", "ir"),
                     ratio(row, "ns", "ns"), ratio(row, "mujoco_ir", "ir"), ratio(row, "mujoco_ns", "ns"),
                     f"{row['simbody_diff']:.1e}" if "simbody_diff" in row else "not checked (no rhs)"]
        out.append(f"| {KIND[row['kind']]} | {row['n']} | " + " | ".join(cells) + " |")
    return out


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    grid = tuple(int(a) for a in sys.argv[2:]) or GRID
    with tempfile.TemporaryDirectory(prefix="lagrangec-articulated-") as w:
        GRID = grid
        result = section({"lagrangec": sys.argv[1], "work": w, "quick": False}, {})
    print("\n".join(report({"articulated": result})))
