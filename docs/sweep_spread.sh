#!/bin/sh
# sweep_spread.sh — the Monte-Carlo study of docs/commands.md ("lagrangec sweep"):
# 400 pendulums whose length l and gravity g are drawn, and the plot of their
# spread, docs/sweep-spread.png: x(t) of the first 40 runs, and x at t = 10 of
# every run against l, coloured by g. The commands are docs/commands.md's.
#
#   docs/sweep_spread.sh [WORK]       # LAGRANGEC=... selects the binary (default build/gen/lagrangec)
set -eu
docs=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$docs")
lagrangec=${LAGRANGEC:-$root/build/gen/lagrangec}
work=${1:-$(mktemp -d)}
mkdir -p "$work"
cd "$work"
"$lagrangec" sweep "$root/specs/pendulum.toml" --samples 400 --vary 'l=normal(1,0.01)' \
    --vary 'g=uniform(9.78,9.83)' --seed 1 --t-end 10 --dt 1e-3 --sample 0.02 --out mc
gnuplot -e "set terminal pngcairo size 1000,420 font 'sans,10'; set output 'spread.png'; set datafile separator ','; set multiplot layout 1,2; set xlabel 't'; set ylabel 'x'; set title 'x(t) of runs 1 to 40'; plot for [k=1:40] sprintf('mc/run/%06d.csv', k) using 't':'x' with lines lc rgb '#a00060c0' notitle; set xlabel 'l'; set ylabel 'x at t = 10'; set title 'x at t = 10 of the 400 runs, by l and g'; set cblabel 'g'; plot 'mc/runs.csv' using 'l':'final x':'g' with points pt 7 ps 0.5 palette notitle; unset multiplot"
mv spread.png "$docs/sweep-spread.png"
