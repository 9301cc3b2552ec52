"""sweep_bench.py — issue 16's benchmark: `lagrangec sweep` of 10,000 runs of the double pendulum to t = 10
(RK4, h = 1e-2: 1,000 steps a run) with one worker, two, and two MPI ranks; and what a run costs beyond its
integration: instructions (callgrind, one process) and wall time measured in the sweep's process (DIR on the
work directory's file system and on a tmpfs), against a 1,000-step run."""
import glob
import os
import re
import resource
import shlex
import shutil
import subprocess
import sys
import tempfile

import correction_bench
import kkt_bench
import measure

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SPEC = os.path.join(ROOT, "specs", "double_pendulum.toml")
RUN = ["--t-end", "10", "--dt", "1e-2", "--vary", "m1=normal(1,0.05)", "--vary", "m2=uniform(0.5,1.5)"]
MPI_ENV = {"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1"}
COMMANDS = [
    "lagrangec sweep specs/double_pendulum.toml --samples 10000 " + " ".join(RUN) +
    " --no-trajectories --out DIR -j 1|-j 2          # runs/s: runs / the command's wall time",
    "mpirun --oversubscribe -np 2 lagrangec sweep ...        # the same, two ranks",
    "lagrangec sweep ... -j 1 --out /dev/shm/DIR             # the same, DIR on a tmpfs",
    "lagrangec sweep ... --samples 1000 -j 1 --out DIR        # with trajectories (1,001 rows a run)",
    "valgrind --tool=callgrind --toggle-collect=lgc_sweep_run|lgc_sim_integrate PROGRAM sweep --samples 200 "
    "... -j 1   # instructions a run, and of its integration",
    "# the -j 1 rows' closing line: 'in X s ...; integrating Y s': a run's overhead is X / Y - 1, in one process",
    "cc -O2 -DMODEL=double_pendulum_model tests/bench/lgc_steps.c PROGRAM'S double_pendulum.c double_pendulum_model.c "
    "liblagrangec.a -o steps",
    "valgrind --tool=callgrind --toggle-collect=lgc_driver_advance steps full 1e-2 10   # the bare driver loop: "
    "the same run's steps and correction, no monitor, no samples; and steps/s: 'steps full 1e-2 100', median of 5",
]
BARE_RUNS = 5


def timed_sweep(cmd, env, out):
    """The sweep's wall seconds, its CPU and system seconds (its own and its workers' or ranks', which
    /usr/bin/time waited for), and the 1-minute load average before it: on a shared machine the wall time of
    -j 2 says more of the others' load than of the sweep."""
    shutil.rmtree(out, ignore_errors=True)
    load = os.getloadavg()[0]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    r = measure.bounded(cmd, 3600, env=env)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if r.get("timeout") or r["status"] not in (0, 1):
        raise RuntimeError(f"{' '.join(cmd)}: {r.get('stderr', 'timed out')[-2000:]}")
    row = {"wall": r["wall"], "cpu": r["cpu"], "sys": after.ru_stime - before.ru_stime, "load": load}
    # The closing line: the runs' wall time, and their integrations' (summed over the processes).
    m = re.search(r"run now, in ([0-9.e+-]+) s: [0-9.]+ runs/s; integrating ([0-9.e+-]+) s", r["stderr"])
    if m:
        row["loop"], row["integrating"] = float(m.group(1)), float(m.group(2))
    return row


def section(ctx, res):
    lagrangec, work = ctx["lagrangec"], ctx["work"]
    runs = 500 if ctx["quick"] else 10000
    env = dict(os.environ, LAGRANGEC_CACHE=os.path.join(work, "cache"), **MPI_ENV)
    base = [lagrangec, "sweep", SPEC, "--samples", str(runs)] + RUN + ["--no-trajectories"]
    out = os.path.join(work, "sweep")
    timed_sweep(base[:4] + ["2"] + RUN + ["--out", out], env, out)  # compiles the program into the cache
    rows = []
    for label, cmd in [("-j 1", base + ["-j", "1"]), ("-j 2", base + ["-j", "2"]),
                       ("mpirun -np 2", ["mpirun", "--oversubscribe", "-np", "2"] + base)]:
        if cmd[0] == "mpirun" and not shutil.which("mpirun"):
            rows.append({"workers": label, "runs": runs, "wall": None})
            continue
        rows.append(dict(timed_sweep(cmd + ["--out", out], env, out), workers=label, runs=runs))
        print(f"sweep {label}: {runs} runs in {rows[-1]['wall']:.1f} s", file=sys.stderr, flush=True)
    # -j 1 again into a tmpfs: how much of a run's cost is the file system's.
    shm = "/dev/shm"
    if os.path.isdir(shm) and os.access(shm, os.W_OK):
        fast = tempfile.mkdtemp(prefix="lagrangec-bench-", dir=shm)
        try:
            there = os.path.join(fast, "sweep")
            rows.append(dict(timed_sweep(base + ["-j", "1", "--out", there], env, there), workers="-j 1, DIR on tmpfs",
                             runs=runs))
        finally:
            shutil.rmtree(fast)
    traj_runs = runs // 10
    row = timed_sweep(base[:4] + [str(traj_runs)] + RUN + ["-j", "1", "--out", out], env, out)
    row["mib"] = sum(os.path.getsize(f) for f in glob.glob(os.path.join(out, "run", "*.csv"))) / 2**20
    rows.append(dict(row, workers="-j 1, trajectories", runs=traj_runs))

    # Instructions of a run, and of its integration alone, in one process.
    program = glob.glob(os.path.join(env["LAGRANGEC_CACHE"], "double_pendulum-*", "double_pendulum"))[0]
    probe = [program, "sweep", "--samples", "200"] + RUN + ["--no-trajectories", "--quiet", "-j", "1"]
    ir = {}
    for toggle in ("lgc_sweep_run", "lgc_sim_integrate"):
        shutil.rmtree(out, ignore_errors=True)
        ir[toggle] = measure.callgrind_ir(probe + ["--out", out], toggle, env=env) / 200
    bare = bare_loop(ctx, program, work)
    return {"rows": rows, "ir_run": ir["lgc_sweep_run"], "ir_integration": ir["lgc_sim_integrate"], "bare": bare,
            "dir_fs": filesystem(work),
            "mpi": subprocess.run(["mpirun", "--version"], capture_output=True, text=True).stdout.split("\n")[0]
            if shutil.which("mpirun") else None}


def bare_loop(ctx, program, work):
    """The same run in the runtime's driver alone (tests/bench/lgc_steps.c on the program's own model sources):
    RK4 at h = 1e-2 to t = 10 with the full correction (a sweep's default for a constrained model), no observer, no
    samples. Its instructions inside lgc_driver_advance, and its seconds a run from steps/s over 10,000 steps."""
    src, build = os.path.dirname(program), ctx["build"]
    exe = os.path.join(work, "sweep-bare-steps")
    measure.output(["cc", "-std=c11", "-O2", "-DMODEL=double_pendulum_model", f"-I{src}",
                    f"-I{build}/runtime/include", f"-I{ROOT}/runtime/include", f"{HERE}/lgc_steps.c",
                    f"{src}/double_pendulum.c", f"{src}/double_pendulum_model.c", f"{build}/runtime/liblagrangec.a"]
                   + kkt_bench.blas_flags() + shlex.split(correction_bench.config(build, "LGC_RUNTIME_LINK_ARGS"))
                   + ["-lm", "-o", exe])
    ir = measure.callgrind_ir([exe, "full", "1e-2", "10"], "lgc_driver_advance")
    steps_per_s = measure.median([float(measure.output([exe, "full", "1e-2", "100"])) for _ in range(BARE_RUNS)])
    return {"ir": ir, "seconds": 1000 / steps_per_s}


def filesystem(path):
    """The type of the file system path is on, as df says it."""
    r = subprocess.run(["df", "--output=fstype", path], capture_output=True, text=True)
    return r.stdout.split()[-1] if r.returncode == 0 else "?"


def report(res):
    s = res.get("sweep")
    if not s:
        return []
    ir_over = s["ir_run"] / s["ir_integration"] - 1
    out = ["\n## Sweeps (issue 16)\n",
           "`lagrangec sweep specs/double_pendulum.toml --samples N --vary m1=normal(1,0.05) "
           "--vary m2=uniform(0.5,1.5) --t-end 10 --dt 1e-2 --no-trajectories`: RK4, 1,000 steps and 1,001 samples "
           "a run. runs/s = N / the whole command's wall time (start-up, every run, the index); CPU s is the user "
           "+ system time of every process of the sweep, what other load does not stretch. "
           f"DIR on {s['dir_fs']} unless said. MPI: {s['mpi'] or 'no mpirun'}, ranks on this machine's cores.\n",
           "| workers | runs | wall s | runs/s | CPU s | of it system | ms CPU a run | load before |",
           "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for r in s["rows"]:
        if r["wall"] is None:
            out.append(f"| {r['workers']} | {r['runs']} | not measured | — | — | — | — | — |")
            continue
        extra = f" ({r['mib']:.0f} MiB of CSV)" if "mib" in r else ""
        out.append(f"| {r['workers']}{extra} | {r['runs']} | {r['wall']:.1f} | {r['runs'] / r['wall']:.0f} | "
                   f"{r['cpu']:.2f} | {r['sys']:.2f} | {1e3 * r['cpu'] / r['runs']:.3f} | {r['load']:.1f} |")
    out += ["",
            "What a run costs beyond its integration, against a 1,000-step run (target: under 5 %):\n",
            "| measure | the run | its integration | overhead |", "|---|---:|---:|---:|",
            f"| instructions (callgrind, `lgc_sweep_run` vs `lgc_sim_integrate`, 200 runs) | {s['ir_run']:.0f} | "
            f"{s['ir_integration']:.0f} | {100 * ir_over:.2f} % |"]
    for r in s["rows"]:
        if r["workers"].startswith("-j 1") and "integrating" in r:
            where = "tmpfs" if "tmpfs" in r["workers"] else s["dir_fs"]
            traj = ", with trajectories" if "mib" in r else ""
            out.append(f"| wall time in one run, -j 1, DIR on {where}{traj} (the closing line: the {r['runs']} runs "
                       f"against their integrations) | {1e3 * r['loop'] / r['runs']:.3f} ms | "
                       f"{1e3 * r['integrating'] / r['runs']:.3f} ms | "
                       f"{100 * (r['loop'] / r['integrating'] - 1):.1f} % |")
    bare = s.get("bare")
    if bare:
        x_ir = s["ir_run"] / bare["ir"]
        walls = [r for r in s["rows"] if r["workers"] == "-j 1" and "loop" in r]
        x_time = walls[0]["loop"] / walls[0]["runs"] / bare["seconds"] if walls else None
        out += ["",
                "A run against the bare driver loop (issue 28; target: at most 1.1x its instructions): the same 1,000 "
                "RK4 steps with the full correction through `lgc_driver_advance` alone (`tests/bench/lgc_steps.c` "
                "built on the sweep's own model sources: no monitor, no samples). *time*: the -j 1 row's run (its "
                "closing line's X over its runs) against 1,000 steps at the bare loop's steps/s (median of "
                f"{BARE_RUNS} runs of 10,000 steps).\n",
                "| measure | a sweep run | the bare loop | x bare loop | verdict |", "|---|---:|---:|---:|---|",
                f"| instructions (callgrind) | {s['ir_run']:.0f} | {bare['ir']} | {x_ir:.3f} | "
                + ("**met**" if x_ir <= 1.1 else f"**missed**, by {x_ir / 1.1:.2f}×") + " |"]
        if x_time is not None:
            out.append(f"| time a run | {1e3 * walls[0]['loop'] / walls[0]['runs']:.3f} ms | "
                       f"{1e3 * bare['seconds']:.3f} ms | {x_time:.3f} | |")
    out += ["",
            "The instruction count is the run's own work in user space: its values, its start's check, its "
            "index line and trajectory formatted. It leaves out the kernel's share: each run appends one record to "
            "its process's journal (one write), and with its trajectory creates and renames one file, which the "
            "wall times have: both clocks of a wall-time row run in "
            "the same process, run after run, so the load of a shared machine stretches both alike. With "
            "trajectories, writing the 1,001 rows of CSV is part of the integration's time."]
    return out
