#!/usr/bin/env python3
"""help2man.py LAGRANGEC COMMAND OUT: the man page lagrangec-COMMAND(1) (or
lagrangec(1) for COMMAND "lagrangec") from the command's own --help, so the
page cannot drift from the program. Its usage lines become the SYNOPSIS, the
paragraphs before the first option the DESCRIPTION, the option lines (two
spaces, then a dash) OPTIONS, and the rest stays as written."""
import subprocess
import sys


# The NAME line of each page: what the command is for, in a few words.
SUMMARIES = {
    "lagrangec": "constrained mechanical systems, from energies and constraints to specialised C",
    "generate": "write the C (and the equations report) of each spec",
    "equations": "print the equations derived from a spec",
    "fmu": "export a spec as an FMI 2.0 FMU (Model Exchange and Co-Simulation)",
    "simulate": "generate, compile (cached), run and summarise a spec",
    "linearize": "the linear model about a point on the constraints, and its eigenvalues",
    "eval": "the model at one state: accelerations, multipliers, mass matrix, energies",
    "sweep": "many runs of one model, over worker processes or MPI ranks",
}


def roff(text):
    # Plain text safe in roff: a backslash doubled, a line's leading dot or quote escaped.
    text = text.replace("\\", "\\e")
    return "\\&" + text if text.startswith((".", "'")) else text


def main():
    lagrangec, command, out = sys.argv[1:4]
    args = [lagrangec, "--help"] if command == "lagrangec" else [lagrangec, command, "--help"]
    help_text = subprocess.run(args, check=True, capture_output=True, text=True).stdout
    name = "lagrangec" if command == "lagrangec" else "lagrangec-" + command
    lines = help_text.rstrip("\n").split("\n")
    usage = []
    while lines and (lines[0].startswith("usage:") or (usage and lines[0].startswith(" ") and lines[0].strip())):
        usage.append(lines.pop(0).replace("usage: ", "", 1).strip())
    summary = SUMMARIES[command]
    page = [f'.TH {name.upper()} 1 "" "lagrangec" "lagrangec manual"', ".SH NAME",
            f"{name} \\- {roff(summary)}", ".SH SYNOPSIS", ".nf"]
    page += [roff(u) for u in usage] + [".fi", ".SH DESCRIPTION", ".nf"]
    for line in lines:
        if line.startswith("  -") and page[-1] != ".SH OPTIONS":
            if ".SH OPTIONS" not in page:
                page += [".fi", ".SH OPTIONS", ".nf"]
        page.append(roff(line))
    page += [".fi", ".SH SEE ALSO"]
    others = ["lagrangec"] + [f"lagrangec-{c}" for c in ("generate", "equations", "fmu", "simulate", "linearize", "eval", "sweep")]
    page.append(", ".join(f"\\fB{o}\\fR(1)" for o in others if o != name))
    page.append("; docs/commands.md and docs/spec.md in lagrangec's source.")
    with open(out, "w", encoding="utf-8") as f:
        f.write("\n".join(page) + "\n")


if __name__ == "__main__":
    main()
