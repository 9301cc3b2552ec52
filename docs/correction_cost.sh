#!/bin/sh
# correction_cost.sh — what the correction after each step costs: valgrind
# instructions per RK4 step (h = 1e-3) of `lagrangec simulate` for each
# --project and --metric, as (instructions of 2000 steps - of 1000 steps)
# / 1000, so start-up and compilation drop out. Prints a Markdown table
# (runtime/README.md, "The default correction").
#
#   docs/correction_cost.sh [SPEC...]   # LAGRANGEC=... selects the binary (default build/gen/lagrangec)
set -eu
docs=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$docs")
lagrangec=${LAGRANGEC:-$root/build/gen/lagrangec}
export LAGRANGEC_CACHE=${LAGRANGEC_CACHE:-$(mktemp -d)}
[ $# -gt 0 ] || set -- pendulum knife_edge four_bar slider_crank double_pendulum bead_hoop rolling_disk

# instructions T PROJECT METRIC: of the model's program run to t = T
instructions() {
    valgrind --tool=callgrind --callgrind-out-file=/dev/null "$program" simulate --dt 1e-3 \
        --t-end "$1" --project "$2" --metric "$3" --quiet 2>&1 | sed -n 's/.*refs: *//p' | tr -d ,
}

echo '| model | none | velocity | full | velocity, mass | full, mass |'
echo '|---|---|---|---|---|---|'
for spec in "$@"; do
    "$lagrangec" simulate "$root/specs/$spec.toml" --t-end 0.001 --dt 1e-3 --quiet
    program=$(ls -td "$LAGRANGEC_CACHE/$spec"-*/"$spec" | head -1)
    row="| $spec"
    for mode in "none identity" "velocity identity" "full identity" "velocity mass" "full mass"; do
        set -- $mode
        per_step=$(( ($(instructions 2 "$1" "$2") - $(instructions 1 "$1" "$2")) / 1000 ))
        row="$row | $per_step"
    done
    echo "$row |"
done
