"""report.py — BENCHMARKS.md from one run's results: machine, commands, the issues' targets, then each section's
tables in the order bench.py runs them; keeps the hand-written notes."""
import os

import targets

NOTES_MARK = "<!-- notes: written by hand, kept by run.sh -->"


def machine(res, sections):
    m = res["machine"]
    commands = [line for _, module in sections for line in module.COMMANDS]
    return ["## Machine and commands\n", "```", f"$ nproc\n{m['nproc']}", f"$ lscpu | head -15\n{m['lscpu']}",
            f"compiler: {m['cc']}", f"versions: {m['versions']}", f"source: {m['source']}",
            "load average (1, 5, 15 min) at the start: {:.2f} {:.2f} {:.2f}; at the end: {:.2f} {:.2f} {:.2f}".format(
                *m["load_start"], *m["load_end"]), "```\n",
            f"Reproduce (a fresh Debian 12 as root, in the repository; this run took {res['elapsed_min']:.0f} min):\n",
            "```",
            "apt-get install -y python3-sympy valgrind libmujoco-dev python3-siconos   # besides the build dependencies of README.md",
            f"tests/bench/run.sh{' ' + res['options'] if res['options'] else ''}"
            "            # builds build-bench (release) and writes BENCHMARKS.md", "```\n",
            "Everything below comes from that one run; SymPy's and MuJoCo's sides run in the same run, with "
            "Debian's `/usr/bin/python3`, `python3-sympy` and `libmujoco-dev`. `ninja -C BUILD_DIR bench` runs the "
            "same on an existing build directory; `tests/bench/run.sh --only mujoco` (or any sections, see "
            "bench.py) measures part of it and prints that part instead of writing this file. The measurements "
            "underneath, per case:\n", "```"] + commands + ["```"]


def sections_text(res, sections):
    """Each section's tables, for the sections that ran."""
    return [line for key, module in sections if key in res for line in module.report(res)]


def write(path, res, sections):
    notes = ""
    if os.path.exists(path):
        with open(path) as f:
            text = f.read()
        if NOTES_MARK in text:
            notes = text[text.index(NOTES_MARK) + len(NOTES_MARK):].strip()
    lines = ["# Benchmarks: lagrangec against SymPy and MuJoCo\n",
             "Written by `tests/bench/run.sh`; do not edit above the notes mark at the end.\n"]
    lines += machine(res, sections) + [""] + targets.issue13(res) + targets.issue5(res) + sections_text(res, sections)
    lines += ["", NOTES_MARK, "", notes]
    with open(path, "w") as f:
        f.write("\n".join(lines).rstrip() + "\n")
