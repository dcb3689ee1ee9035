#!/bin/sh
# matmul.sh - the 1024^3 float32 matmul tuned by `mlcc tune` from the naive
# program (bench/matmul/naive.py), then timed against OpenBLAS in one run of
# the matmul benchmark (build/bench/matmul --records), at 1 and 2 threads.
#   sh bench/tune/matmul.sh [TRIALS [BUDGET]]     (from the repository root)
# TRIALS (default 512) and BUDGET (default 15m) are the totals: each thread
# count gets half, since records are kept per thread count.  The tuning logs
# and the database stay in build/bench/tune-matmul; run it again with the
# same folder to continue from them (FRESH=1 starts over).
set -eu
trials=${1:-512}
budget=${2:-15m}
mlcc=build/mlcc
bench=build/bench/matmul
out=build/bench/tune-matmul
mkdir -p "$out"
[ -x "$mlcc" ] || make -s "$mlcc"
[ -x "$bench" ] || make -s "$bench"
[ "${FRESH:-0}" = 1 ] && rm -f "$out/db.jsonl"
# half of the budget: minutes or seconds, as mlcc tune takes them
half=$(echo "$budget" | awk '{ v = $0 + 0; u = substr($0, length($0)); s = (u == "m") ? v * 60 : (u == "h" ? v * 3600 : v); printf "%ds", s / 2 }')
echo "CPU: $(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //'), $(getconf _NPROCESSORS_ONLN) online"
for t in 1 2; do
  start=$(date +%s)
  "$mlcc" tune bench/matmul/naive.py -o "$out/db.jsonl" --trials $((trials / 2)) --time-budget "$half" \
    --threads "$t" 2>"$out/tune-${t}t.log"
  echo "tuning at $t thread(s): $(grep -c '^round' "$out/tune-${t}t.log") rounds in $(($(date +%s) - start)) s; $(tail -n 1 "$out/tune-${t}t.log")"
done
sh bench/matmul/run.sh "$bench" --no-naive --out "$out" --records "$out/db.jsonl"
