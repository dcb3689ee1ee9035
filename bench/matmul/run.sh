#!/bin/sh
# run.sh - run the matmul benchmark on whatever x86-64 CPU this is: print the
# CPU model and its vector extensions, run the driver with OpenBLAS as the
# environment configures it (the driver prints the kernel OpenBLAS chose),
# and, only on a CPU that has the AVX-512 subsets OpenBLAS's SkylakeX kernel
# uses, once more with OPENBLAS_CORETYPE=SkylakeX: Debian's OpenBLAS 0.3.21
# does not recognise newer CPUs and may fall back to a slower kernel.  The
# variable is read when the library loads, hence a second process.  On a CPU
# without AVX-512 that second run would die of an illegal instruction, so it
# is skipped with the reason.
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

model=$(sed -n 's/^model name[[:space:]]*:[[:space:]]*//p' /proc/cpuinfo 2>/dev/null | head -n 1)
flags=" $(sed -n 's/^flags[[:space:]]*:[[:space:]]*//p' /proc/cpuinfo 2>/dev/null | head -n 1) "
has() { case "$flags" in *" $1 "*) return 0 ;; esac; return 1; }
ext=''
for f in sse4_2 avx fma avx2 avx512f avx512dq avx512bw avx512vl avx512_vnni avx512_bf16 avx512_fp16 amx_tile; do
  has "$f" && ext="$ext $f"
done
echo "CPU: ${model:-unknown} ($(nproc) cores available)"
echo "vector extensions:${ext:- none found}"
echo

echo "=== OpenBLAS as configured (OPENBLAS_CORETYPE=${OPENBLAS_CORETYPE:-unset}) ==="
"$bin" "$@"
echo
if has avx512f && has avx512dq && has avx512bw && has avx512vl; then
  echo "=== OPENBLAS_CORETYPE=SkylakeX ==="
  OPENBLAS_CORETYPE=SkylakeX "$bin" "$@"
else
  echo "=== OPENBLAS_CORETYPE=SkylakeX: skipped, this CPU lacks AVX-512 (F, DQ, BW, VL) ==="
fi
