"""first_run.py — what the first `lagrangec simulate` and the first `lagrangec linearize` of a spec cost
on a cold cache (each run in a cache directory of its own): the generation and compile of the model's
program, and a run too short to count.

Usage: /usr/bin/python3 first_run.py LAGRANGEC SPEC... [--repeat N]

Prints, for each spec and command, the median over N runs (default 3) of the wall time and of the CPU
time of the process and its children (the compiler's too), what a loaded machine stretches less.
"""
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from measure import bounded, median  # noqa: E402

COMMANDS = {
    "simulate": ["--t-end", "0.001", "--dt", "0.001", "--quiet"],
    "linearize": [],
}
LIMIT = 900  # s: a first build that takes longer is a finding in itself


def first_run(lagrangec, spec, command):
    with tempfile.TemporaryDirectory(prefix="lagrangec-first-run-") as cache:
        env = dict(os.environ, LAGRANGEC_CACHE=cache)
        r = bounded([lagrangec, command, spec] + COMMANDS[command], LIMIT, env=env)
    if r.get("timeout"):
        raise SystemExit(f"{command} {spec}: no result within {LIMIT} s")
    if r["status"] != 0:
        raise SystemExit(f"{command} {spec} failed (exit {r['status']}):\n{r['stderr']}")
    return r


def main(argv):
    repeat = 3
    if "--repeat" in argv:
        k = argv.index("--repeat")
        repeat = int(argv[k + 1])
        del argv[k:k + 2]
    if len(argv) < 2:
        raise SystemExit(__doc__)
    lagrangec, specs = argv[0], argv[1:]
    print(f"| spec | command | wall (s, median of {repeat}) | CPU (s, median of {repeat}) |")
    print("|---|---|---|---|")
    for spec in specs:
        for command in COMMANDS:
            runs = [first_run(lagrangec, spec, command) for _ in range(repeat)]
            wall = median([r["wall"] for r in runs])
            cpu = median([r["cpu"] for r in runs])
            print(f"| {os.path.basename(spec)} | {command} | {wall:.2f} | {cpu:.2f} |", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
