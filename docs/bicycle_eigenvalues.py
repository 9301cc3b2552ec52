#!/usr/bin/env python3
"""docs/bicycle_eigenvalues.py — the Whipple bicycle's eigenvalues against
forward speed, from `lagrangec linearize specs/bicycle.toml --json` at
v = 0, 0.05, ..., 10 m/s: writes docs/bicycle_eigenvalues.dat and, with
gnuplot, docs/bicycle_eigenvalues.png (docs/bicycle.md shows it).

Usage: docs/bicycle_eigenvalues.py [LAGRANGEC]   (default: build/gen/lagrangec)

The eigenvalues lagrangec reports as 0 (within its round-off bound) are
the six of the ignorable coordinates and the forward speed, not the
benchmark's four: they are left out.
"""
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
LAGRANGEC = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build", "gen", "lagrangec")
SPEC = os.path.join(ROOT, "specs", "bicycle.toml")
INDEPENDENT = "x,y,psi,phi,thetaR,delta,thetaF,phi',delta',thetaR'"
RR, RF = 0.3, 0.35  # Table 1's wheel radii, the spec's defaults


def eigenvalues(v):
    out = subprocess.run(
        [LAGRANGEC, "linearize", SPEC, "--json", "--independent", INDEPENDENT,
         "--at", "phi=0", "--at", "x'=%r" % v, "--at", "thetaR'=%r" % (-v / RR), "--at", "thetaF'=%r" % (-v / RF)],
        check=True, capture_output=True, text=True).stdout
    return [(e["re"], e["im"]) for e in json.loads(out)["eigenvalues"] if (e["re"], e["im"]) != (0, 0)]


def main():
    data = os.path.join(HERE, "bicycle_eigenvalues.dat")
    with open(data, "w") as f:
        f.write("# v [m/s], then re im of each eigenvalue lagrangec does not report as 0\n")
        for k in range(201):
            v = k * 0.05
            f.write("%.2f %s\n" % (v, " ".join("%.15g %.15g" % e for e in eigenvalues(v))))
    script = """
set terminal pngcairo size 900,600
set output 'bicycle_eigenvalues.png'
set xlabel 'forward speed v [m/s]'
set ylabel 'eigenvalue [1/s]'
set title 'Whipple bicycle benchmark: lagrangec linearize specs/bicycle.toml'
set yrange [-10:10]
set grid
set key bottom right
set arrow from 4.2923825363411,-10 to 4.2923825363411,10 nohead dt 2
set arrow from 6.0242620153884,-10 to 6.0242620153884,10 nohead dt 2
set label 'v_w' at 4.35,9
set label 'v_c' at 6.08,9
plot for [i=0:3] 'bicycle_eigenvalues.dat' using 1:(column(2+2*i)) with points pt 7 ps 0.4 lc 1 title (i == 0 ? 'real part' : ''), \\
     for [i=0:3] 'bicycle_eigenvalues.dat' using 1:(column(3+2*i) > 0 ? column(3+2*i) : 1/0) with points pt 6 ps 0.4 lc 2 title (i == 0 ? 'imaginary part (> 0)' : '')
"""
    subprocess.run(["gnuplot"], input=script, check=True, text=True, cwd=HERE)  # relative names: no path in the script


if __name__ == "__main__":
    main()
