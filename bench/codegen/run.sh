#!/bin/sh
# run.sh - the codegen benchmark: print the CPU, run the driver (builds,
# checks and times every program; the generated C stays in OUT), then the
# C compiler's vectorization report for each program's generated C,
# summarized per kernel function: loops vectorized, and the distinct
# reasons given for loops left scalar.  With MLC_TVM_PYTHON set to a Python
# that has apache-tvm, bench/codegen/tvm_side.py then times TVM's LLVM build
# of the same programs (same schedule scripts) at 1 and 2 threads, in the
# same sitting; mlcc never needs TVM.
#
# Usage: bench/codegen/run.sh [BENCH_BINARY [ARGS...]]   (from the repository
# root; `make bench-codegen` builds the binary and calls this)
set -eu
bin=${1:-build/bench/codegen}
[ $# -gt 0 ] && shift
out=build/bench-codegen
if [ ! -x "$bin" ]; then
  echo "run.sh: $bin not built (run: make bench-codegen)" >&2
  exit 2
fi
model=$(sed -n 's/^model name[[:space:]]*:[[:space:]]*//p' /proc/cpuinfo 2>/dev/null | head -n 1)
echo "CPU: ${model:-unknown} ($(nproc) cores available)"
"$bin" --out "$out" "$@"

cc=${CC:-cc}
march=${MLC_MARCH:-native}
echo
echo "=== vectorization report ($cc -O3 -march=$march -fopt-info-vec-optimized / -missed) ==="
for c in "$out"/*.c; do
  [ -f "$c" ] || continue
  rep=$out/$(basename "$c" .c).vec.txt
  "$cc" -std=gnu11 -O3 -ffp-contract=fast -march="$march" -fPIC -w -c "$c" -o /dev/null \
    -fopt-info-vec-optimized -fopt-info-vec-missed 2>"$rep" || true
  echo "--- $(basename "$c" .c) (full report: $rep)"
  # the kernels of the file, each with the report lines of its line range
  awk -v rep="$rep" '
    /^static int32_t (mlck_|mlcp_)[A-Za-z0-9_]*\(/ {
      name = $3; sub(/\(.*/, "", name); start[++n] = NR; fname[n] = name
    }
    END {
      start[n + 1] = 1e9
      while ((getline line < rep) > 0) {
        if (split(line, f, ":") < 3) continue
        ln = f[2] + 0
        for (i = 1; i <= n; i++) if (ln >= start[i] && ln < start[i + 1]) break
        if (i > n) continue
        if (line ~ /optimized: loop vectorized/) vec[i]++
        else if (line ~ /optimized: basic block/) slp[i]++
        else if (line ~ /missed:/) {
          why = line; sub(/.*missed: */, "", why); sub(/ *\.$/, "", why)
          if (why ~ /^(couldn.t vectorize loop|not vectorized:)$/) continue
          key = i SUBSEP why
          if (!(key in seen)) { seen[key] = 1; reasons[i] = reasons[i] "\n      " why }
          missed[i]++
        }
      }
      for (i = 1; i <= n; i++)
        printf "  %-32s loops vectorized %d, basic blocks (SLP) %d, missed %d%s\n",
               fname[i], vec[i], slp[i], missed[i], reasons[i]
    }' "$c"
done


if [ -n "${MLC_TVM_PYTHON:-}" ]; then
  echo
  echo "=== TVM's LLVM build of the same programs (MLC_TVM_PYTHON=$MLC_TVM_PYTHON) ==="
  printf '%-22s %5s %8s %8s\n' program size GFLOPS '(best)'
  for t in 1 2; do
    TVM_NUM_THREADS=$t "$MLC_TVM_PYTHON" bench/codegen/tvm_side.py
  done
fi
