#!/bin/sh
# drift_study.sh — the drift study of docs/drift-study.md: long `lagrangec
# simulate` runs of holonomic and nonholonomic examples with no
# stabilisation, Baumgarte gains and each correction; CSVs into WORK, plots
# into docs/, the table of maxima on stdout.
#
#   docs/drift_study.sh [WORK]        # LAGRANGEC=... selects the binary (default build/gen/lagrangec)
set -eu
docs=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$docs")
lagrangec=${LAGRANGEC:-$root/build/gen/lagrangec}
work=${1:-$(mktemp -d)}
mkdir -p "$work"
t_end=1000
h=0.01

# run NAME SPEC RESIDUAL OPTIONS...: simulate into WORK/NAME.csv, reduce it to
# (RESIDUAL the CSV's column, phi[1] or g[1])
# WORK/NAME.dat (t, |residual|, |E - E0|/|E0|, zeros drawn at 1e-17) and add a
# table row with the maxima over every step from the run's --summary-json.
run() {
    name=$1 spec=$2 residual=$3
    shift 3
    "$lagrangec" simulate "$root/specs/$spec.toml" --t-end $t_end --dt $h --sample 1 \
        --out "$work/$name.csv" --summary-json "$work/$name.json" --quiet "$@"
    awk -F, -v col="$residual" '
        function floor17(v) { v = v < 0 ? -v : v; return v > 1e-17 ? v : 1e-17 }
        NR == 1 { for (i = 1; i <= NF; i++) { if ($i == col) r = i; if ($i == "T+V") e = i }; next }
        NR == 2 { e0 = $e; s = e0 < 0 ? -e0 : e0 }
        { printf "%s %.3e %.3e\n", $1, floor17($r), floor17(($e - e0) / s) }
' "$work/$name.csv" > "$work/$name.dat"
    maxima=$(python3 -c 'import json, sys
s = json.load(open(sys.argv[1]))
drift = s["energy_drift"]
print("%.1e | %s" % (s["max_residuals"][sys.argv[2]], "n/a" if drift is None else "%.1e" % drift))' \
        "$work/$name.json" "$residual")
    printf '| %s | %s | %s | %s |\n' "$spec" "$h" "$*" "$maxima"
}

# plot NAME TITLE RESIDUAL RUN:LABEL...: residual and energy error against t, log scale.
plot() {
    png=$1 title=$2 residual=$3
    shift 3
    curves=
    for c in "$@"; do
        curves="$curves'$work/${c%%:*}.dat' using 1:COLUMN with lines title '${c#*:}', "
    done
    gnuplot <<GP
set terminal pngcairo size 1000,900 font ',11'
set output '$docs/$png'
set multiplot layout 2,1 title '$title (RK4, h = $h)'
set logscale y
set format y '10^{%L}'
set xlabel 't'
set key outside right
set ylabel '|$residual| at samples'
plot $(printf '%s' "$curves" | sed 's/COLUMN/2/g')
set ylabel '|E - E0| / |E0|'
plot $(printf '%s' "$curves" | sed 's/COLUMN/3/g')
unset multiplot
GP
}

echo '| spec | h | options | max residual (every step) | energy drift |'
echo '|---|---|---|---|---|'
run pend_none pendulum 'phi[1]' --baumgarte off --project none
run pend_b10_0 pendulum 'phi[1]' --baumgarte 10,0 --project none
run pend_b10_25 pendulum 'phi[1]' --baumgarte 10,25 --project none
run pend_b100_2500 pendulum 'phi[1]' --baumgarte 100,2500 --project none
run pend_velocity pendulum 'phi[1]' --baumgarte off --project velocity
run pend_full pendulum 'phi[1]' --baumgarte off --project full
run pend_full_mass pendulum 'phi[1]' --baumgarte off --project full --metric mass
run knife_none knife_edge 'g[1]' --baumgarte off --project none
run knife_b10_0 knife_edge 'g[1]' --baumgarte 10,0 --project none
run knife_b100_0 knife_edge 'g[1]' --baumgarte 100,0 --project none
run knife_b10_25 knife_edge 'g[1]' --baumgarte 10,25 --project none
run knife_b100_2500 knife_edge 'g[1]' --baumgarte 100,2500 --project none
run knife_velocity knife_edge 'g[1]' --baumgarte off --project velocity
run disk_none rolling_disk 'g[1]' --baumgarte off --project none
run disk_b10_0 rolling_disk 'g[1]' --baumgarte 10,0 --project none
run disk_b10_25 rolling_disk 'g[1]' --baumgarte 10,25 --project none
run disk_velocity rolling_disk 'g[1]' --baumgarte off --project velocity

plot drift-pendulum.png 'Cartesian pendulum: holonomic drift' 'phi[1]' \
    pend_none:none pend_b10_0:'alpha 10, beta 0' pend_b10_25:'alpha 10, beta 25' \
    pend_b100_2500:'alpha 100, beta 2500' pend_velocity:'velocity correction' pend_full:'full correction'
plot drift-knife-edge.png 'Knife-edge dumbbell: nonholonomic drift' 'g[1]' \
    knife_none:none knife_b10_0:'alpha 10, beta 0' knife_b100_0:'alpha 100, beta 0' \
    knife_b10_25:'alpha 10, beta 25 (int g)' knife_velocity:'velocity correction'
plot drift-rolling-disk.png 'Vertical rolling disk: nonholonomic drift' 'g[1]' \
    disk_none:none disk_b10_0:'alpha 10, beta 0' disk_b10_25:'alpha 10, beta 25 (int g)' \
    disk_velocity:'velocity correction'

# The bound against alpha h and beta h^2 (critically damped, beta = alpha^2/4)
# at two step sizes.
for h in 0.01 0.005; do
    for ah in 0.04 0.2 1; do
        a=$(awk -v ah=$ah -v h=$h 'BEGIN { printf "%.17g", ah / h }')
        b=$(awk -v a="$a" 'BEGIN { printf "%.17g", a * a / 4 }')
        run "pend_sweep_${h}_$ah" pendulum 'phi[1]' --baumgarte "$a,$b" --project none
    done
done
