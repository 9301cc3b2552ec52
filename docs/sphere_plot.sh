#!/bin/sh
# sphere_plot.sh — the plot of docs/commands.md's sphere example, docs/sphere.png:
# the particle's path in the x-z plane against the sphere, with the point
# where it lets go, and the sphere's push (the output normal_force) against
# t. The command is docs/commands.md's.
#
#   docs/sphere_plot.sh [WORK]       # LAGRANGEC=... selects the binary (default build/gen/lagrangec)
set -eu
docs=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$docs")
lagrangec=${LAGRANGEC:-$root/build/gen/lagrangec}
work=${1:-$(mktemp -d)}
mkdir -p "$work"
cd "$work"
"$lagrangec" simulate "$root/specs/sphere.toml" --t-end 2 --rtol 1e-12 --atol 1e-13 --sample 0.002 \
    --out sphere.csv --events sphere_events.csv
gnuplot -e "set terminal pngcairo size 1000,420 font 'sans,10'; set output 'sphere.png'; set datafile separator ','; set multiplot layout 1,2; set size ratio -1; set xlabel 'x'; set ylabel 'z'; set title 'path, and where it lets go'; set parametric; set trange [0:2*pi]; plot cos(t), sin(t) lc rgb '#808080' title 'sphere', 'sphere.csv' using 'x':'z' with lines lw 2 lc rgb '#0060c0' title 'particle', 'sphere_events.csv' using 'x':'z' every ::0::0 with points pt 7 ps 1.5 lc rgb '#c00000' title 'release'; unset parametric; set size noratio; set xlabel 't'; set ylabel 'normal force'; set title 'the push of the sphere, 2 R lambda1'; plot 'sphere.csv' using 't':'normal_force' with lines lw 2 lc rgb '#0060c0' notitle; unset multiplot"
mv sphere.png "$docs/sphere.png"
