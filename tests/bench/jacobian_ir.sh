#!/bin/sh
# jacobian_ir.sh — callgrind instructions per call of a generated model's
# NAME_rhs, NAME_jacobian, and both at one state (what an implicit step asks
# at each Newton iterate), cc -std=c11 -O2 as `lagrangec simulate` compiles.
#   tests/bench/jacobian_ir.sh DIR NAME [WORK]
# DIR holds NAME.h and NAME.c (generated/, or `lagrangec generate`'s -o);
# WORK, where the executables go (a temporary directory by default). Prints
# per line: NAME, rhs | jacobian | rhs+jacobian, Ir per call, and a checksum
# of the results (bench_result), equal where two versions compute the same.
set -e
dir=$1 name=$2 work=$3
if [ -z "$work" ]; then
    work=$(mktemp -d)
    trap 'rm -rf "$work"' EXIT
fi
here=$(dirname "$0")
upper=$(echo "$name" | tr a-z A-Z)
build() {  # executable, adapter, extra flags
    cc -std=c11 -O2 -I"$here" -I"$dir" -include "$name.h" -DMODEL="$name" -DUMODEL="$upper" $3 \
        "$here/$2" "$dir/$name.c" "$here/bench_rhs.c" -lm -o "$work/$1"
}
build rhs lagrangec_adapter.c
build jacobian lagrangec_adapter.c -DBENCH_JACOBIAN_ONLY
build rhs+jacobian lagrangec_adapter.c -DBENCH_JACOBIAN
for what in rhs jacobian rhs+jacobian; do
    ir=$(LD_BIND_NOW=1 valgrind --tool=callgrind --toggle-collect=bench_call --callgrind-out-file=/dev/null \
        "$work/$what" calls 20 2>&1 | sed -n 's/.*Collected : \([0-9]*\).*/\1/p')
    echo "$name $what $((ir / 20)) $("$work/$what" value)"
done
