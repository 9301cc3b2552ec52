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
            "apt-get install -y python3-sympy valgrind libmujoco-dev libsimbody-dev python3-siconos   # besides the build dependencies of README.md",
            f"tests/bench/run.sh{' ' + res['options'] if res['options'] else ''}"
            "            # builds build-bench (release) and writes BENCHMARKS.md", "```\n",
            "Everything below comes from that one run; SymPy's, MuJoCo's and Simbody's sides run in the same run, "
            "with Debian's `/usr/bin/python3`, `python3-sympy`, `libmujoco-dev` and `libsimbody-dev`. `ninja -C BUILD_DIR bench` runs the "
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


def replace_sections(path, res, sections, command):
    """The sections that ran written over their part of BENCHMARKS.md (a section not there yet goes before the
    notes), each under a line saying which run it comes from: the command, the source, the machine, the load."""
    with open(path) as f:
        lines = f.read().split("\n")
    m = res["machine"]
    cpu = next((line.split(":", 1)[1].strip() for line in m["lscpu"].split("\n") if line.startswith("Model name")),
               "?")
    stamp = (f"_This section comes from one separate run, `{command}` ({res['elapsed_min']:.1f} min; source "
             f"{m['source']}; a {m.get('buildtype', '?')} build; {m['nproc']} × {cpu}, {m['cc']}; load average {m['load_start'][0]:.2f} at its start, "
             f"{m['load_end'][0]:.2f} at its end); the next full run replaces it._")
    for key, module in sections:
        if key not in res:
            continue
        text = "\n".join(module.report(res)).strip("\n").split("\n")
        heading = text[0]
        body = [heading, "", stamp] + text[1:] + [""]
        if heading in lines:
            start = lines.index(heading)
            end = next((i for i in range(start + 1, len(lines))
                        if lines[i].startswith("## ") or lines[i] == NOTES_MARK), len(lines))
            lines[start:end] = body
        else:
            at = lines.index(NOTES_MARK) if NOTES_MARK in lines else len(lines)
            lines[at:at] = body
    with open(path, "w") as f:
        f.write("\n".join(lines))
