"""correction_bench.py — what the one-step correction costs on the 10-link Cartesian chain (issue 14's target):
RK4 steps/s with --project none, velocity and full, interleaved, medians, and callgrind instructions per step;
each through the model's generated correction and through the runtime's generic one (the same program built
again from the same sources with the descriptor's correction fields taken out)."""
import glob
import os
import re
import shlex
import shutil
import subprocess
import sys

import chain_specs
import measure

MODES = ("none", "velocity", "full")
PATHS = ("generated", "generic")
RUNS = 7
COMMANDS = ["SIMULATOR simulate --dt 1e-3 --t-end 20 --project none|velocity|full   # steps/s, 7 rounds "
            "interleaved over modes and paths",
            "valgrind --tool=callgrind SIMULATOR simulate --dt 1e-3 --t-end 2|1 --project MODE --quiet   "
            "# (Ir(2000 steps) - Ir(1000 steps)) / 1000"]


def config(build, name):
    """A string macro of the generator's build configuration (how it compiles models' programs)."""
    with open(os.path.join(build, "gen", "lagrangec_config.h")) as f:
        return re.search(rf'#define {name} "(.*)"', f.read()).group(1)


def generic_program(ctx, exe, name):
    """The cached program's sources compiled again as lagrangec does, the descriptor without its correction."""
    src, out = os.path.dirname(exe), os.path.join(ctx["work"], "correction-generic")
    os.makedirs(out, exist_ok=True)
    for f in (f"{name}.c", f"{name}.h", "main.c"):
        shutil.copy(os.path.join(src, f), out)
    with open(os.path.join(src, f"{name}_model.c")) as f:
        model = [line for line in f if not re.match(r"\s*\.(correction_\w+|nwork_correction) =", line)]
    with open(os.path.join(out, f"{name}_model.c"), "w") as f:
        f.writelines(model)
    build = ctx["build"]
    subprocess.run(["cc", "-std=c11", "-O2", "-I", config(build, "LGC_SOURCE_RUNTIME_INCLUDE"), f"{name}.c",
                    f"{name}_model.c", "main.c", config(build, "LGC_BUILD_RUNTIME_LIBRARY"), "-o", name]
                   + shlex.split(config(build, "LGC_RUNTIME_LINK_ARGS")), cwd=out, check=True)
    return os.path.join(out, name)


def steps_per_second(exe, t_end, mode):
    out = measure.output([exe, "simulate", "--dt", "1e-3", "--t-end", str(t_end), "--project", mode])
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
    programs = {"generated": exe, "generic": generic_program(ctx, exe, name)}
    t_end = 0.5 if ctx["quick"] else 20.0
    sps = {(path, mode): [] for path in PATHS for mode in MODES}
    for _ in range(RUNS):
        for mode in MODES:
            for path in PATHS:
                sps[path, mode].append(steps_per_second(programs[path], t_end, mode))
    rows = []
    for path in PATHS:
        for mode in MODES:
            program = programs[path]
            per_step = (instructions(program, 2, mode) - instructions(program, 1, mode)) / 1000
            # the ratio to none within each round, then its median: the load moves between rounds
            ratios = [a / b for a, b in zip(sps[path, mode], sps[path, "none"])]
            rows.append({"path": path, "mode": mode, "steps_per_s": measure.median(sps[path, mode]),
                         "runs": sps[path, mode], "ratio": measure.median(ratios),
                         "instructions_per_step": per_step})
            print(f"correction {path} {mode}: {rows[-1]['steps_per_s']:.0f} steps/s, {per_step:.0f} "
                  "instructions/step", file=sys.stderr, flush=True)
    return {"system": "10-link chain (Cartesian)", "steps": round(t_end / 1e-3), "rows": rows}


def report(res):
    r = res.get("correction")
    if not r:
        return []
    out = ["\n## Correction cost (issue 14)\n",
           f"{r['system']}, RK4, h = 1e-3, {r['steps']} steps, metric identity (the default): steps/s from "
           f"`simulate`'s summary, median of {RUNS} rounds run interleaved (each mode through each path in turn), "
           "*x none* the median of each round's ratio to none on the same path; "
           "instructions per step by callgrind over the whole program (rhs, correction, the monitor). *generated*: "
           "the model's own NAME_correction_factor/_solve (straight-line over the nonzeros of M and C); *generic*: "
           "the same program with them taken out of the descriptor, so the runtime's generic correction runs "
           "(the code before they existed). Targets: velocity >= 0.8x and full >= 0.6x the steps/s of none (issue 14); "
           "full >= 0.85x on the generated path (issue 28), beside its instructions' ratio.\n",
           "| path | correction | steps/s | x none | instructions/step | x none (instructions) |",
           "|---|---|---:|---:|---:|---:|"]
    for row in r["rows"]:
        none = next(x for x in r["rows"] if x.get("path") == row.get("path") and x["mode"] == "none")
        out.append(f"| {row.get('path', '')} | {row['mode']} | {row['steps_per_s']:.0f} | "
                   f"{row.get('ratio', row['steps_per_s'] / none['steps_per_s']):.2f} | "
                   f"{row['instructions_per_step']:.0f} | "
                   f"{none['instructions_per_step'] / row['instructions_per_step']:.2f} |")
    return out
