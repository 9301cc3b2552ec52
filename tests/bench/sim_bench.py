"""sim_bench.py — simulation throughput (steps/s) per correction mode, and a count of heap allocations per step."""
import glob
import os
import re
import sys

import chain_specs
import measure

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
MODES = ("none", "velocity", "full")
COMMANDS = ["lagrangec simulate SPEC --dt 1e-3 --t-end T --project none|velocity|full      # steps/s of the summary",
            "LD_PRELOAD=alloc_count.so SIMULATOR simulate --dt 1e-3 --t-end 0.1|0.05 --project MODE --quiet"]


def steps_per_second(lagrangec, spec, t_end, mode, env):
    out = measure.output([lagrangec, "simulate", spec, "--dt", "1e-3", "--t-end", str(t_end),
                          "--project", mode], env=env)
    return float(re.search(r"\(([\d.]+) steps/s\)", out).group(1))


def heap_allocs(counter, exe, t_end, mode):
    """malloc/calloc/realloc calls of a whole simulator run, counted by alloc_count.c."""
    out = measure.stderr([exe, "simulate", "--dt", "1e-3", "--t-end", str(t_end), "--project", mode, "--quiet"],
                         env=dict(os.environ, LD_PRELOAD=counter))
    return int(re.search(r"alloc_count: (\d+)", out).group(1))


def allocs_per_step(counter, exe, mode):
    """(allocations of a 100-step run − those of a 50-step run) / 50: zero when a step allocates nothing."""
    return (heap_allocs(counter, exe, 0.1, mode) - heap_allocs(counter, exe, 0.05, mode)) / 50


def run(lagrangec, work, systems, alloc_only):
    """systems: (label, spec path, t_end); alloc_only: more (label, spec) checked for allocation in mode full."""
    env = dict(os.environ, LAGRANGEC_CACHE=os.path.join(work, "cache"))
    counter = os.path.join(work, "alloc_count.so")
    measure.output([os.environ.get("CC", "cc"), "-O2", "-shared", "-fPIC",
                    os.path.join(HERE, "alloc_count.c"), "-o", counter])
    rows = []

    def simulator(spec):
        name = os.path.basename(spec)[:-len(".toml")]
        measure.output([lagrangec, "simulate", spec, "--dt", "1e-3", "--t-end", "1e-3", "--quiet"], env=env)  # compiles it
        return glob.glob(os.path.join(env["LAGRANGEC_CACHE"], f"{name}-*", name))[0]

    for label, spec, t_end in systems:
        exe = simulator(spec)
        for mode in MODES:
            sps = [steps_per_second(lagrangec, spec, t_end, mode, env) for _ in range(3)]
            row = {"system": label, "mode": mode, "steps": round(t_end / 1e-3), "steps_per_s": measure.median(sps),
                   "allocs_per_step": allocs_per_step(counter, exe, mode)}
            print(f"simulate {label} {mode}: {row['steps_per_s']:.0f} steps/s, "
                  f"{row['allocs_per_step']} allocations per step", file=sys.stderr, flush=True)
            rows.append(row)
    for label, spec in alloc_only:
        row = {"system": label, "mode": "full", "allocs_per_step": allocs_per_step(counter, simulator(spec), "full")}
        print(f"allocations {label}: {row['allocs_per_step']} per step", file=sys.stderr, flush=True)
        rows.append(row)
    return rows


def section(ctx, res):
    work, sim_t = ctx["work"], 0.1 if ctx["quick"] else 1.0
    return run(ctx["lagrangec"], work,
               [("knife-edge dumbbell", f"{ROOT}/specs/knife_edge.toml", 20 * sim_t),
                ("double pendulum (Cartesian)", f"{ROOT}/specs/double_pendulum.toml", 20 * sim_t),
                ("10-link chain (Cartesian)", chain_specs.write(work, "cartesian", 10)[1], 5 * sim_t)],
               [] if ctx["quick"] else [(f"{n}-link chain (Cartesian)", chain_specs.write(work, "cartesian", n)[1])
                                        for n in (20, 50)])


def report(res):
    if not res.get("simulation"):
        return []
    out = ["\n## Simulation throughput\n",
           "`lagrangec simulate SPEC --dt 1e-3 --t-end T --project MODE` (RK4), steps/s from its summary "
           "(integration loop only), median of 3. *allocations per step*: malloc/calloc/realloc calls of a "
           "100-step run minus those of a 50-step run, over 50, counted by the LD_PRELOAD library "
           "`tests/bench/alloc_count.c`.\n",
           "| system | steps | none steps/s | velocity steps/s | full steps/s | allocations per step |",
           "|---|---:|---:|---:|---:|---:|"]
    systems = []
    for r in res["simulation"]:
        if "steps_per_s" in r and r["system"] not in systems:
            systems.append(r["system"])
    for s in systems:
        rows = {r["mode"]: r for r in res["simulation"] if r["system"] == s}
        allocs = max(r["allocs_per_step"] for r in rows.values())
        out.append(f"| {s} | {rows['none']['steps']} | {rows['none']['steps_per_s']:.0f} | "
                   f"{rows['velocity']['steps_per_s']:.0f} | {rows['full']['steps_per_s']:.0f} | {allocs:g} |")
    extra = [r for r in res["simulation"] if "steps_per_s" not in r]
    if extra:
        out.append("\nAllocations per step at larger sizes (mode full): " +
                   ", ".join(f"{r['system']}: {r['allocs_per_step']:g}" for r in extra) + ".")
    return out
