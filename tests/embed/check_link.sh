#!/bin/sh
# check_link.sh EXE MODEL_LIB SANITIZE CC... — the embedding example links
# nothing but libm and libc (EXE's NEEDED entries), and every symbol the
# generated model leaves undefined (nm -u MODEL_LIB) is libm's. A sanitized
# build may add its runtime libraries and hooks.
set -eu
exe=$1 lib=$2 sanitize=$3
shift 3   # the rest is the C compiler's command (it may start with a wrapper such as ccache)
status=0

for needed in $(readelf -d "$exe" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
  case $needed in
    libm.so.*|libc.so.*) ;;
    libasan.so.*|libubsan.so.*|libgcc_s.so.*) [ "$sanitize" != none ] || { echo "links $needed"; status=1; } ;;
    *) echo "links $needed"; status=1 ;;
  esac
done

libm=$("$@" -print-file-name=libm.so.6)
defined=$(nm -D --defined-only "$libm" | awk '{ print $3 }' | sed 's/@.*//')
for sym in $(nm -u "$lib" | awk '{ print $2 }' | sort -u); do
  case $sym in __asan_*|__ubsan_*) [ "$sanitize" != none ] && continue ;; esac
  echo "$defined" | grep -qx "$sym" || { echo "the generated model needs $sym, not in libm"; status=1; }
done

echo "NEEDED: $(readelf -d "$exe" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' ')"
echo "model's undefined symbols: $(nm -u "$lib" | awk '{ print $2 }' | sort -u | tr '\n' ' ')"
exit $status
