"""mujoco_bench.py — lagrangec against MuJoCo on one system, the chains of uniform rods of rod_chain.py (the same
masses, lengths and inertias; test_mujoco_oracle.c checks that they are the same system): one generated rhs in
each writing against one mj_forward (instructions, ns), RK4 steps/s, and the first run (a cold `lagrangec
simulate`, generate and compile, against mj_loadXML + mj_makeData)."""
import math
import os
import re
import sys

import kkt_bench
import measure
import rod_chain

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
CC = os.environ.get("CC", "cc")
CFLAGS = ["-std=c11", "-O2"]  # what `lagrangec simulate` compiles sources under 1 MiB with
GRID, QUICK_GRID = (2, 5, 10, 20, 50), (2, 5)
H = 1e-3  # both sides' RK4 step (rod_chain.mjcf's timestep)
REPEATS = 5  # timing runs per side, interleaved round by round
CALLS = 20  # callgrind counts are exact; a few calls average out nothing but are cheap
LIMITS = {"generate": 120, "simulate": 600, "compile": 600}  # wall seconds per process (the machine is shared)
MEMORY = 4 << 30  # address space for generating and compiling: lagrangec's own ceiling
MODES = {"absolute": ("none",), "relative": ("none",), "cartesian": ("none", "velocity", "full"), "bodies": ("none",)}
COMMANDS = [
    "BENCH_MJCF=rod_mN.xml MUJOCO_HARNESS calls 20 | ns    # RHS_HARNESS's bench_rhs.c around mj_forward",
    "lgc_steps none|velocity|full 1e-3 T_END; mujoco_run rod_mN.xml steps T_END    # RK4 steps/s",
    "lagrangec simulate SPEC --dt 1e-3 --t-end 1e-3 --quiet   # cold LAGRANGEC_CACHE: the first run",
    "mujoco_run rod_mN.xml load                               # mj_loadXML + mj_makeData",
]


def horizon(n):
    """Simulated seconds of a throughput run, the same for both tools: about 0.2 s of MuJoCo's stepping."""
    return {2: 20.0, 5: 10.0, 10: 5.0, 20: 2.0}.get(n, 1.0)


def outcome(r):
    """A bounded process as a result: ok with its time and memory, timeout, or failed with its last words."""
    if r.get("timeout"):
        return {"status": "timeout"}
    if r["status"] != 0:
        lines = [line for line in r["stderr"].splitlines() if line.strip()] or [f"exit {r['status']}"]
        causes = [line for line in lines if re.search(r"error:|out of memory", line)]  # cc's, under lagrangec's
        return {"status": "failed", "message": re.sub(r"^\S+:\d+:\d+: error: ", "", (causes or lines)[-1])[:200]}
    return {"status": "ok", "wall": r["wall"], "cpu": r["cpu"], "peak_mib": r["peak_mib"]}


def rhs_harness(name, source, header_dir, exe, flags=()):
    """bench_rhs.c's timing and counting harness around a generated model's rhs (its .c or .o); `flags` for
    lagrangec_adapter.c (-DBENCH_INPUTS=NAME_input_defaults for a model with inputs)."""
    measure.output([CC] + CFLAGS + list(flags) + [f"-I{HERE}", f"-I{header_dir}", "-include", f"{name}.h",
                                    f"-DMODEL={name}", f"-DUMODEL={name.upper()}", f"{HERE}/lagrangec_adapter.c", source,
                                    f"{HERE}/bench_rhs.c", "-lm", "-o", exe])


def build_mujoco(work):
    """The two MuJoCo harnesses, one for every N: bench_rhs around mj_forward, and mujoco_run."""
    rhs, run = f"{work}/mujoco_rhs", f"{work}/mujoco_run"
    measure.output([CC] + CFLAGS + [f"-I{HERE}", f"{HERE}/mujoco_adapter.c", f"{HERE}/bench_rhs.c",
                                    "-lmujoco", "-o", rhs])
    measure.output([CC] + CFLAGS + [f"{HERE}/mujoco_run.c", "-lmujoco", "-lm", "-o", run])
    return rhs, run


def mujoco_case(tools, work, n):
    """MuJoCo's row for N links and its timing commands."""
    rhs, run = tools
    _, xml = rod_chain.write(work, "mjcf", n)
    env = dict(os.environ, BENCH_MJCF=xml)
    row = {"side": "mujoco", "n": n, "steps": round(horizon(n) / H),
           "load_ms": float(measure.output([run, xml, "load"])),
           "qacc": [float(v) for v in measure.output([run, xml, "qacc"]).split()],
           "ir": measure.callgrind_ir([rhs, "calls", str(CALLS)], "bench_call", env=env) / CALLS}
    timing = {"ns": ([rhs, "ns"], env, float), "rk4": ([run, xml, "steps", str(horizon(n))], None, float)}
    return row, timing


def summary_steps(text):
    return float(re.search(r"\(([\d.]+) steps/s\)", text).group(1))


def writing_case(ctx, writing, n, tried):
    """lagrangec's row for one writing at N links and its timing commands (None when it stopped short).
    tried: the stages still run at this N ("generate": all of them, "first_run"); one that fails is not tried
    at larger N."""
    lagrangec, work = ctx["lagrangec"], ctx["work"]
    name, spec = rod_chain.write(work, writing, n)
    out = f"{work}/{name}"
    os.makedirs(out, exist_ok=True)
    row = {"side": writing, "n": n, "name": name}
    row["generate"] = outcome(measure.bounded([lagrangec, "generate", "--no-jacobian", spec, "-o", out],
                                              LIMITS["generate"], MEMORY))
    if row["generate"]["status"] != "ok":
        tried.clear()
        return row, None
    source = f"{out}/{name}.c"
    row["c_kib"] = os.path.getsize(source) / 1024
    cache = f"{work}/cache-{name}"
    env = dict(os.environ, LAGRANGEC_CACHE=cache)
    if "first_run" in tried:
        row["first_run"] = outcome(measure.bounded([lagrangec, "simulate", spec, "--dt", str(H), "--t-end", str(H),
                                                    "--quiet"], LIMITS["simulate"], MEMORY, env=env))
        if row["first_run"]["status"] != "ok":
            tried.discard("first_run")
    obj = f"{out}/{name}.o"
    row["compile"] = outcome(measure.bounded([CC] + CFLAGS + ["-c", source, "-o", obj], LIMITS["compile"], MEMORY))
    if row["compile"]["status"] != "ok":
        tried.clear()
        return row, None
    rhs, steps = f"{out}/rhs", f"{out}/steps"
    rhs_harness(name, obj, out, rhs)
    measure.output([CC] + CFLAGS + [f"-DMODEL={name}_model", f"-I{out}", f"-I{ctx['build']}/runtime/include",
                                    f"-I{ROOT}/runtime/include", f"{HERE}/lgc_steps.c", obj, f"{out}/{name}_model.c",
                                    f"{ctx['build']}/runtime/liblagrangec.a"] + kkt_bench.blas_flags()
                   + ["-lm", "-o", steps])
    row["ir"] = measure.callgrind_ir([rhs, "calls", str(CALLS)], "bench_call") / CALLS
    row["value"] = float(measure.output([rhs, "value"]))
    timing = {"ns": ([rhs, "ns"], None, float)}
    timing.update({mode: ([steps, mode, str(H), str(horizon(n))], None, float) for mode in MODES[writing]})
    if row.get("first_run", {}).get("status") == "ok":  # its cache holds the program: no compile in the timing
        timing["simulate"] = ([lagrangec, "simulate", spec, "--dt", str(H), "--t-end", str(horizon(n)),
                               "--project", "none"], env, summary_steps)
    return row, timing


def expected_last(writing, n, qacc):
    """The last entry of dx/dt at the benchmark state, from MuJoCo's qacc: phi_N'', theta_N'', or y_N''."""
    if writing in ("relative", "bodies"):
        return qacc[-1]
    if writing == "absolute":
        return sum(qacc)
    theta, rate = rod_chain.absolute_state(n)
    acc, y_acc = 0.0, 0.0
    for i in range(n):
        acc += qacc[i]
        y_acc += rod_chain.length(i + 1) * (math.sin(theta[i]) * acc + math.cos(theta[i]) * rate[i] ** 2)
    return y_acc


def interleave(timings):
    """Runs every (row, key) command once per round for REPEATS rounds and stores the median in row['timing'][key];
    a command that fails (a run that blew up) is stored as its message and not run again."""
    samples = {}
    for _ in range(REPEATS):
        for (i, key), (cmd, env, parse) in timings.items():
            if isinstance(samples.get((i, key)), str):
                continue
            try:
                samples.setdefault((i, key), []).append(parse(measure.output(cmd, env=env)))
            except RuntimeError as e:
                samples[(i, key)] = str(e).splitlines()[-1][:200]
    return {k: v if isinstance(v, str) else measure.median(v) for k, v in samples.items()}


def section(ctx, res):
    """Rows per (N, side); a writing that is refused, passes a limit or fails is not tried at larger N."""
    work = os.path.join(ctx["work"], "mujoco")
    os.makedirs(work, exist_ok=True)
    ctx = dict(ctx, work=work)
    tools = build_mujoco(work)
    tried = {w: {"generate", "first_run"} for w in rod_chain.WRITINGS}
    rows = []
    for n in QUICK_GRID if ctx["quick"] else GRID:
        mj, timings = mujoco_case(tools, work, n)
        per_n = [mj]
        timings = {(0, k): v for k, v in timings.items()}
        for writing in rod_chain.WRITINGS:
            if not tried[writing]:
                per_n.append({"side": writing, "n": n, "not_tried": True})
                continue
            row, t = writing_case(ctx, writing, n, tried[writing])
            if "value" in row:
                want = expected_last(writing, n, mj["qacc"])
                row["same"] = abs(row["value"] - want) <= 1e-8 * max(1.0, abs(want))
            per_n.append(row)
            timings.update({(len(per_n) - 1, k): v for k, v in (t or {}).items()})
        for (i, key), value in interleave(timings).items():
            per_n[i].setdefault("timing", {})[key] = value
        for row in per_n:
            print(f"mujoco N={n:2} {row['side']:9}: " + describe(row), file=sys.stderr, flush=True)
        rows += per_n
    return {"rows": rows, "h": H, "repeats": REPEATS, "limits": LIMITS, "memory_gib": MEMORY >> 30,
            "flags_disabled": list(rod_chain.MJCF_DISABLED)}


def describe(row):
    if row.get("not_tried"):
        return "not tried"
    t = row.get("timing", {})
    parts = [f"{row['ir']:.0f} Ir" if "ir" in row else "", f"{t['ns']:.0f} ns" if is_num(t.get("ns")) else ""]
    for stage in ("generate", "first_run", "compile"):
        if stage in row:
            parts.append(f"{stage} {status_cell(row[stage])}")
    return ", ".join(p for p in parts if p)


# The report: three tables, a row per (N, side), MuJoCo first.

def is_num(x):
    return isinstance(x, (int, float))


def status_cell(o, key="wall", digits=2, limit=None):
    """A stage's cell: its value, '> limit', or the failure's message."""
    if o is None:
        return "—"
    if o["status"] == "timeout":
        return f"> {limit} s" if limit else "timeout"
    if o["status"] == "failed":
        return f"failed: {first_clause(o['message'])}"
    return f"{o[key]:.{digits}f}"


def first_clause(message):
    """A failure's message up to its first ';': the generator's refusal says what, then advises."""
    return message.split(";")[0]


def label(row):
    return "MuJoCo" if row["side"] == "mujoco" else f"lagrangec, {row['side']}"


def by_n(rows):
    out = {}
    for r in rows:
        out.setdefault(r["n"], {})[r["side"]] = r
    return out


def ratio(a, b, digits=2):
    return f"{a / b:.{digits}f}" if is_num(a) and is_num(b) and b else "—"


def cell(x, digits=0):
    return f"{x:.{digits}f}" if is_num(x) else ("—" if x is None else f"failed: {x}")


def forward_table(m):
    out = ["### One forward dynamics evaluation: generated rhs against mj_forward\n",
           "The same state (rod_chain.py's benchmark state, in each writing), `cc -std=c11 -O2`, both sides through "
           "`tests/bench/bench_rhs.c`. *Ir*: instructions per call, callgrind `--toggle-collect=bench_call`, libm "
           "included, symbols bound at start-up (`LD_BIND_NOW=1`). *ns*: median of "
           f"{m['repeats']} runs of bench_rhs's own median, the sides interleaved run by run. *same*: the last entry "
           "of dx/dt equals MuJoCo's q'' mapped into the writing (relative 1e-8).\n",
           "| N | side | Ir | ns | Ir / mj_forward | ns / mj_forward | same |", "|---:|---|---:|---:|---:|---:|:-:|"]
    for n, sides in by_n(m["rows"]).items():
        mj = sides["mujoco"]
        for r in [mj] + [sides[w] for w in rod_chain.WRITINGS if w in sides]:
            ns = r.get("timing", {}).get("ns")
            if "ir" not in r:
                out.append(f"| {n} | {label(r)} | {stopped(r)} | | | | |")
                continue
            same = "" if r is mj else ("yes" if r["same"] else "**no**")
            out.append(f"| {n} | {label(r)} | {r['ir']:.0f} | {cell(ns)} | {ratio(r['ir'], mj['ir'])} | "
                       f"{ratio(ns, mj.get('timing', {}).get('ns'))} | {same} |")
    return out


def stopped(r, stages=("generate", "compile")):
    """Why a writing has no measurements at this N: the first of `stages` that failed."""
    if r.get("not_tried"):
        return "not tried (stopped at a smaller N)"
    for stage in stages:
        o = r.get(stage)
        if o and o["status"] != "ok":
            what = {"generate": "generate", "first_run": "first simulate", "compile": "cc -O2"}[stage]
            return f"{what}: " + ("over its limit" if o["status"] == "timeout" else first_clause(o["message"]))
    return "—"


def steps_table(m):
    out = ["\n### RK4 throughput\n",
           f"Steps per second of a fixed-step RK4 run from the benchmark state, h = {m['h']:g} on both sides, "
           "the same horizon (*steps*). MuJoCo: `mj_step` (its RK4, 4 mj_forward per step) in "
           "`tests/bench/mujoco_run.c`. lagrangec: the runtime's driver (`lgc_rk4`, `tests/bench/lgc_steps.c`) "
           "with the correction after each step none, velocity or full (Cartesian writing only; the angle "
           "writings have no constraints); *simulate*: `lagrangec simulate --project none`'s own figure, whose "
           "loop also tracks residuals and energy at every step. Median of "
           f"{m['repeats']} runs, interleaved.\n",
           "| N | side | steps | RK4 steps/s | velocity | full | simulate | RK4 / MuJoCo's |",
           "|---:|---|---:|---:|---:|---:|---:|---:|"]
    for n, sides in by_n(m["rows"]).items():
        mj, steps = sides["mujoco"].get("timing", {}).get("rk4"), sides["mujoco"]["steps"]
        out.append(f"| {n} | MuJoCo | {steps} | {cell(mj)} | | | | 1 |")
        for w in rod_chain.WRITINGS:
            r = sides.get(w)
            if r is None or "timing" not in r:
                continue
            t = r["timing"]
            out.append(f"| {n} | {label(r)} | {steps} | " + " | ".join(
                cell(t[k]) if k in t else "" for k in ("none", "velocity", "full", "simulate"))
                + f" | {ratio(t.get('none'), mj)} |")
    return out


def first_run_table(m):
    lim = m["limits"]
    out = ["\n### First run\n",
           "lagrangec: `lagrangec generate --no-jacobian` alone, then "
           "`lagrangec simulate SPEC --dt 1e-3 --t-end 1e-3` "
           "on an empty cache (generate, compile with the system cc, one step), then the benchmark's own "
           f"`cc -O2 -c` of the generated C; each limited to {lim['generate']} s, {lim['simulate']} s and "
           f"{lim['compile']} s and {m['memory_gib']} GiB of address space (the generator's own ceiling). "
           "MuJoCo: `mj_loadXML` + `mj_makeData` of the MJCF, median of 5 in one process. Peak memory: the "
           "largest resident set of the process and its children (`/usr/bin/time %M`); *CPU s*: their user + "
           "system time (`%U + %S`), which a loaded machine stretches less than the wall time.\n",
           "| N | side | generate s | generate MiB | .c kB | first simulate s | CPU s | MiB | cc -O2 s | CPU s "
           "| MiB | MuJoCo load ms |",
           "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for n, sides in by_n(m["rows"]).items():
        out.append(f"| {n} | MuJoCo | | | | | | | | | | {sides['mujoco']['load_ms']:.2f} |")
        for w in rod_chain.WRITINGS:
            r = sides.get(w)
            if r is None:
                continue
            if r.get("not_tried"):
                out.append(f"| {n} | {label(r)} | not tried | | | | | | | | | |")
                continue
            g, f, c = r["generate"], r.get("first_run"), r.get("compile")
            if g["status"] != "ok":
                out.append(f"| {n} | {label(r)} | {status_cell(g, limit=lim['generate'])} | | | | | | | | | |")
                continue
            out.append(f"| {n} | {label(r)} | {status_cell(g, limit=lim['generate'])} | "
                       f"{extra(g, 'peak_mib', 0)} | "
                       f"{r['c_kib']:.0f} | "
                       f"{status_cell(f, limit=lim['simulate']) if f else 'not tried'} | {extra(f, 'cpu', 1)} | "
                       f"{extra(f, 'peak_mib', 0)} | {status_cell(c, limit=lim['compile']) if c else ''} | "
                       f"{extra(c, 'cpu', 1)} | {extra(c, 'peak_mib', 0)} | |")
    return out


def extra(o, key, digits):
    """A second figure of a stage that succeeded (CPU time, memory), else nothing."""
    return f"{o[key]:.{digits}f}" if o and o["status"] == "ok" else ""


def report(res):
    m = res.get("mujoco")
    if not m:
        return []
    return (["\n## lagrangec against MuJoCo on the same chains\n",
             "One system, written five ways by `tests/bench/rod_chain.py`: a planar chain of N uniform rods "
             "(masses 1, 1.5, 2, ...; lengths 1, 0.9, 0.8, 0.7, ...; inertia m l²/12 about each centre) on hinges, "
             "as lagrangec specs in absolute angles, in relative joint angles (as robot arms are written: link i "
             "at ph1 + ... + phi) and in Cartesian joint coordinates with N length constraints (T of each rod "
             "from its end points, a constant M), as [bodies] on frames L_i = L_(i-1) z(ph_i) in relative angles "
             "(T and V left to the generator), and as MJCF for MuJoCo "
             f"{res['machine'].get('mujoco', '')} (Debian's `libmujoco-dev`): hinges, no geoms, inertias in "
             "`<inertial>` (all three principal moments m l²/12: MuJoCo refuses a zero one, and only the one about "
             "the hinge acts in the plane), gravity −9.81, integrator RK4, and disabled through `<flag>`: "
             + ", ".join(m["flags_disabled"]) + " (energy is off by default). The test `mujoco-oracle` "
             "(`meson test`) checks that the two are the same system: at 20 random states per model, N = 2, 5, "
             "10, every writing's q'' equals mj_forward's to 1e-9 (relative), and 500 of MuJoCo's RK4 steps "
             "equal the runtime's rk4 in the three angle writings.\n"]
            + forward_table(m) + steps_table(m) + first_run_table(m))
