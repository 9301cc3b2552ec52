#!/bin/sh
# check_exports.sh LIB — the shared library exports only lgc_ names
# (issue 12): every dynamic symbol it defines, as `nm -D --defined-only`
# lists them, starts with lgc_, and its API is there (lgc_driver_alloc).
# An AddressSanitizer build adds __odr_asan.NAME for each exported global
# NAME: those of lgc_ globals are ours too.
set -eu
lib=$1
symbols=$(nm -D --defined-only "$lib" | awk 'NF == 3 { print $3 }')
if ! printf '%s\n' "$symbols" | grep -qx 'lgc_driver_alloc'; then
    echo "$lib: lgc_driver_alloc is not among its exports:" >&2
    printf '  %s\n' $symbols >&2
    exit 1
fi
others=$(printf '%s\n' "$symbols" | grep -v -e '^lgc_' -e '^__odr_asan\.lgc_' || true)
if [ -n "$others" ]; then
    echo "$lib exports names without the lgc_ prefix:" >&2
    printf '  %s\n' $others >&2
    exit 1
fi
echo "$lib: $(printf '%s\n' "$symbols" | wc -l) exported symbols, all lgc_"
