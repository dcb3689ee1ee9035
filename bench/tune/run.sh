#!/bin/sh
# run.sh - the course's 128 x 128 matmul + relu: tuned by `mlcc tune` from the
# unscheduled program against the course's hand schedule (course_schedule.py)
# and the unscheduled program, all built and timed in this one run.
#   sh bench/tune/run.sh [TRIALS [THREADS]]     (from the repository root)
# Prints the CPU, each program's min time per call (`mlcc run --time`, 2 s of
# calls) and the ratios.  The tuning log and the programs stay in build/bench/tune.
set -eu
trials=${1:-64}
threads=${2:-$(getconf _NPROCESSORS_ONLN)}
mlcc=build/mlcc
out=build/bench/tune
module=tests/golden/roundtrip/mm_relu.py
mkdir -p "$out"
[ -x "$mlcc" ] || make -s "$mlcc"
echo "CPU: $(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //'), $(getconf _NPROCESSORS_ONLN) online, $threads thread(s)"

rm -f "$out/db.jsonl"
start=$(date +%s)
"$mlcc" tune "$module" -o "$out/db.jsonl" --trials "$trials" --threads "$threads" 2>"$out/tune.log"
echo "tuning: $trials trials in $(($(date +%s) - start)) s ($(grep -c '"seconds":null' "$out/db.jsonl" || true) failed candidates)"

"$mlcc" build "$module" -o "$out/naive.so"
"$mlcc" schedule "$module" bench/tune/course_schedule.py >"$out/hand.py"
"$mlcc" build "$out/hand.py" -o "$out/hand.so"
MLCRT_NUM_THREADS=$threads "$mlcc" build "$module" -o "$out/tuned.so" --records "$out/db.jsonl" 2>/dev/null

# min ms per call of LIB (three runs of the timer, the best)
time_of() {
  MLCRT_NUM_THREADS=$threads "$mlcc" run "$1" --func mm_relu --fill random --time 2>&1 |
    sed -n 's/.* min \([0-9.e+-]*\) ms.*/\1/p' | head -n 1
}
best_of() {
  b=
  for _ in 1 2 3; do
    t=$(time_of "$1")
    if [ -z "$b" ] || awk "BEGIN{exit !($t < $b)}"; then b=$t; fi
  done
  echo "$b"
}
naive=$(best_of "$out/naive.so")
hand=$(best_of "$out/hand.so")
tuned=$(best_of "$out/tuned.so")
printf '%-28s %10s %12s\n' program "min ms" "vs tuned"
for p in naive hand tuned; do
  eval t=\$$p
  printf '%-28s %10s %11.2fx\n' "$p" "$t" "$(awk "BEGIN{print $t / $tuned}")"
done
