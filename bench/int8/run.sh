#!/bin/sh
# run.sh - the int8 matmul benchmark: print the CPU and its dot-product
# extensions, then run the driver (bench.c: builds, checks and times the
# programs; the generated C stays in build/bench-int8).
#
# Usage: bench/int8/run.sh [BENCH_BINARY [ARGS...]]   (from the repository
# root; `make bench-int8` builds the binary and calls this)
set -eu
bin=${1:-build/bench/int8}
[ $# -gt 0 ] && shift
if [ ! -x "$bin" ]; then
  echo "run.sh: $bin not built (run: make bench-int8)" >&2
  exit 2
fi
model=$(sed -n 's/^model name[[:space:]]*:[[:space:]]*//p' /proc/cpuinfo 2>/dev/null | head -n 1)
flags=$(sed -n 's/^flags[[:space:]]*:[[:space:]]*//p' /proc/cpuinfo 2>/dev/null | head -n 1 | tr ' ' '\n' |
  grep -E '^(avx2|avx512f|avx512_vnni|avx_vnni)$' | tr '\n' ' ')
echo "CPU: ${model:-unknown} ($(nproc) cores available); ${flags:-no AVX2}"
echo "MLC_MARCH: ${MLC_MARCH:-native}"
exec "$bin" "$@"
