"""sweep_bench.py — issue 16's benchmark: `lagrangec sweep` of 10,000 runs of the double pendulum to t = 10
(RK4, h = 1e-2: 1,000 steps a run) with one worker, two, and two MPI ranks; and what a run costs beyond its
integration: instructions (callgrind, one process) and wall time, against a 1,000-step run."""
import glob
import os
import re
import shutil
import statistics
import subprocess
import sys

import measure

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SPEC = os.path.join(ROOT, "specs", "double_pendulum.toml")
RUN = ["--t-end", "10", "--dt", "1e-2", "--vary", "m1=normal(1,0.05)", "--vary", "m2=uniform(0.5,1.5)"]
MPI_ENV = {"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1"}
COMMANDS = [
    "lagrangec sweep specs/double_pendulum.toml --samples 10000 " + " ".join(RUN) +
    " --no-trajectories --quiet --out DIR -j 1|-j 2          # runs/s: runs / the command's wall time",
    "mpirun --oversubscribe -np 2 lagrangec sweep ...        # the same, two ranks",
    "lagrangec sweep ... --samples 1000 -j 1 --out DIR        # with trajectories (1,001 rows a run)",
    "valgrind --tool=callgrind --toggle-collect=lgc_sweep_run|lgc_sim_integrate PROGRAM sweep --samples 200 "
    "... -j 1   # instructions a run, and of its integration",
    "lagrangec simulate specs/double_pendulum.toml --t-end 10 --dt 1e-2 --summary-json -   # wall_time: the bare "
    "integration, median of 9",
]


def timed_sweep(cmd, env, out):
    shutil.rmtree(out, ignore_errors=True)
    r = measure.bounded(cmd, 3600, env=env)
    if r.get("timeout") or r["status"] not in (0, 1):
        raise RuntimeError(f"{' '.join(cmd)}: {r.get('stderr', 'timed out')[-2000:]}")
    return r["wall"]


def section(ctx, res):
    lagrangec, work = ctx["lagrangec"], ctx["work"]
    runs = 500 if ctx["quick"] else 10000
    env = dict(os.environ, LAGRANGEC_CACHE=os.path.join(work, "cache"), **MPI_ENV)
    base = [lagrangec, "sweep", SPEC, "--samples", str(runs)] + RUN + ["--no-trajectories", "--quiet"]
    out = os.path.join(work, "sweep")
    timed_sweep(base[:4] + ["2"] + RUN + ["--out", out], env, out)  # compiles the program into the cache
    rows = []
    for label, cmd in [("-j 1", base + ["-j", "1"]), ("-j 2", base + ["-j", "2"]),
                       ("mpirun -np 2", ["mpirun", "--oversubscribe", "-np", "2"] + base)]:
        if cmd[0] == "mpirun" and not shutil.which("mpirun"):
            rows.append({"workers": label, "runs": runs, "wall": None})
            continue
        wall = timed_sweep(cmd + ["--out", out], env, out)
        rows.append({"workers": label, "runs": runs, "wall": wall, "runs_per_s": runs / wall})
        print(f"sweep {label}: {runs} runs in {wall:.1f} s", file=sys.stderr, flush=True)
    traj_runs = runs // 10
    wall = timed_sweep(base[:4] + [str(traj_runs)] + RUN + ["--quiet", "-j", "1", "--out", out], env, out)
    size = sum(os.path.getsize(f) for f in glob.glob(os.path.join(out, "run", "*.csv")))
    rows.append({"workers": "-j 1, trajectories", "runs": traj_runs, "wall": wall, "runs_per_s": traj_runs / wall,
                 "mib": size / 2**20})

    # Instructions of a run, and of its integration alone, in one process.
    program = glob.glob(os.path.join(env["LAGRANGEC_CACHE"], "double_pendulum-*", "double_pendulum"))[0]
    probe = [program, "sweep", "--samples", "200"] + RUN + ["--no-trajectories", "--quiet", "-j", "1"]
    ir = {}
    for toggle in ("lgc_sweep_run", "lgc_sim_integrate"):
        shutil.rmtree(out, ignore_errors=True)
        ir[toggle] = measure.callgrind_ir(probe + ["--out", out], toggle, env=env) / 200
    # The bare integration's wall time: simulate's own clock around its loop.
    bare = []
    for _ in range(9):
        s = measure.output([lagrangec, "simulate", SPEC, "--t-end", "10", "--dt", "1e-2", "--summary-json", "-"],
                           env=env)
        bare.append(float(re.search(r'"wall_time": ([0-9.e-]+)', s).group(1)))
    one = next(r for r in rows if r["workers"] == "-j 1")
    return {"rows": rows, "ir_run": ir["lgc_sweep_run"], "ir_integration": ir["lgc_sim_integrate"],
            "bare_wall": statistics.median(bare), "sweep_wall_per_run": one["wall"] / one["runs"],
            "mpi": subprocess.run(["mpirun", "--version"], capture_output=True, text=True).stdout.split("\n")[0]
            if shutil.which("mpirun") else None}


def report(res):
    s = res.get("sweep")
    if not s:
        return []
    ir_over = s["ir_run"] / s["ir_integration"] - 1
    wall_over = s["sweep_wall_per_run"] / s["bare_wall"] - 1
    out = ["\n## Sweeps (issue 16)\n",
           "`lagrangec sweep specs/double_pendulum.toml --samples N --vary m1=normal(1,0.05) "
           "--vary m2=uniform(0.5,1.5) --t-end 10 --dt 1e-2 --no-trajectories`: RK4, 1,000 steps and 1,001 samples "
           "a run. runs/s = N / the whole command's wall time (start-up, every run, the index). "
           f"MPI: {s['mpi'] or 'no mpirun'}, ranks on this machine's cores.\n",
           "| workers | runs | wall s | runs/s |", "|---|---:|---:|---:|"]
    for r in s["rows"]:
        if r["wall"] is None:
            out.append(f"| {r['workers']} | {r['runs']} | not measured | — |")
            continue
        extra = f" ({r['mib']:.0f} MiB of CSV)" if "mib" in r else ""
        out.append(f"| {r['workers']}{extra} | {r['runs']} | {r['wall']:.1f} | {r['runs_per_s']:.0f} |")
    out += ["",
            "What a run costs beyond its integration, against a 1,000-step run (target: under 5 %):\n",
            "| measure | the run | its integration | overhead |", "|---|---:|---:|---:|",
            f"| instructions (callgrind, `lgc_sweep_run` vs `lgc_sim_integrate`, 200 runs) | {s['ir_run']:.0f} | "
            f"{s['ir_integration']:.0f} | {100 * ir_over:.2f} % |",
            f"| wall time (sweep -j 1 per run vs simulate's integration loop) | {1e3 * s['sweep_wall_per_run']:.3f} ms "
            f"| {1e3 * s['bare_wall']:.3f} ms | {100 * wall_over:.1f} % |",
            "",
            "The instruction count leaves out the kernel's share (each run creates and renames one file, two with "
            "its trajectory); the wall time has it, and the noise of a shared machine."]
    return out
