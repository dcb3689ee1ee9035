#!/bin/sh
# run.sh - run the matmul benchmark twice: with OpenBLAS as it configures
# itself, and with OPENBLAS_CORETYPE=SkylakeX.  Debian's OpenBLAS 0.3.21 does
# not recognise newer Xeons and falls back to a slower kernel; the variable
# must be in the environment before the process starts, hence two runs.
#
# Usage: bench/matmul/run.sh [BENCH_BINARY [ARGS...]]   (from the repository root;
# `make bench` builds the binary and calls this)
set -eu
bin=${1:-build/bench/matmul}
[ $# -gt 0 ] && shift
if [ ! -x "$bin" ]; then
  echo "run.sh: $bin not built (run: make bench)" >&2
  exit 2
fi
echo "=== OpenBLAS as detected ==="
env -u OPENBLAS_CORETYPE "$bin" "$@"
echo
echo "=== OPENBLAS_CORETYPE=SkylakeX ==="
OPENBLAS_CORETYPE=SkylakeX "$bin" "$@"
