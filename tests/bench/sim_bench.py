"""sim_bench.py — simulation throughput (steps/s) per correction mode, and a count of heap allocations per step."""
import glob
import os
import re
import sys

import measure

HERE = os.path.dirname(os.path.abspath(__file__))
MODES = ("none", "velocity", "full")


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
