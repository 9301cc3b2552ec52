#!/usr/bin/env python3
"""accuracy_table.py DOC EXE...: runs the float_accuracy programs (one per
model and precision, each printing `name precision median max corrected
uncorrected`), prints the table of what single precision costs, and writes
it between DOC's accuracy markers (docs/embedding.md)."""
import os
import subprocess
import sys

BEGIN = "<!-- float accuracy table: ninja -C build float-accuracy -->"
END = "<!-- end of the float accuracy table -->"

readme, exes = sys.argv[1], sys.argv[2:]
rows = {}
for exe in exes:
    out = subprocess.run([exe], capture_output=True, text=True, check=True).stdout.split()
    name, precision, median, largest, corrected, uncorrected = out
    rows.setdefault(name, {})[precision] = (median, largest, corrected, uncorrected)

lines = ["| model | rhs error, float: median | max | residual, double: corrected | uncorrected "
         "| float: corrected | uncorrected |",
         "|---|---:|---:|---:|---:|---:|---:|"]
for name in sorted(rows):
    d, f = rows[name]["double"], rows[name]["float"]
    lines.append(f"| {name} | {f[0]} | {f[1]} | {d[2]} | {d[3]} | {f[2]} | {f[3]} |")
table = "\n".join(lines) + "\n"
print(table, end="")
text = open(readme, encoding="utf-8").read()
start, end = text.index(BEGIN) + len(BEGIN), text.index(END)
tmp = f"{readme}.{os.getpid()}.tmp"
with open(tmp, "w", encoding="utf-8") as f:
    f.write(text[:start] + "\n" + table + text[end:])
os.replace(tmp, readme)
