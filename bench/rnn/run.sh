#!/bin/sh
# run.sh - compile time and run time of one LSTM layer over a long sequence
# (bench/README.md): the model of gen_lstm.c (hidden 128, input 64, batch 1
# by default) compiled by `mlcc compile` and run by `mlcc run --time`, once
# per mlcc given, side by side in one run.  The second mlcc is the peer: a
# build of another commit (the recurrent layers unrolled over time, before
# they became a loop), so the ratios say what the loop changed.
#
# Usage: bench/rnn/run.sh [BUILD [PEER_MLCC]]   (from the repository root;
# BUILD defaults to build; `make bench-rnn` builds mlcc and the generator)
# Environment: STEPS (1000), H (128), I (64), B (1), THREADS (1), ROUNDS
# (5: runs of each model, alternating; the median of their medians is shown).
set -eu
b=${1:-build}
peer=${2:-}
STEPS=${STEPS:-1000}
H=${H:-128}
I=${I:-64}
B=${B:-1}
THREADS=${THREADS:-1}
ROUNDS=${ROUNDS:-5}
out=$b/bench-rnn
mkdir -p "$out"
echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //')"
echo "lstm: $STEPS steps, hidden $H, input $I, batch $B; $THREADS thread(s)"
"$b/bench/gen_lstm" "$out/lstm.onnx" "$STEPS" "$H" "$I" "$B"

ms_now() { date +%s%N | awk '{ printf "%.0f", $1 / 1000000 }'; }

# compile with mlcc $2 into $out/$1; the milliseconds it took, or "-"
compile() {
  rm -rf "$out/$1"
  t0=$(ms_now)
  if ! "$2" compile "$out/lstm.onnx" -o "$out/$1" > "$out/$1.log" 2>&1; then
    echo "$1: compile failed: $(tail -1 "$out/$1.log")" >&2
    echo -
    return
  fi
  echo $(($(ms_now) - t0))
}

# the median milliseconds per run of the model in $out/$1, by mlcc $2
run() {
  [ -f "$out/$1/model.so" ] || { echo -; return; }
  r=$("$2" run "$out/$1" --fill random --time --threads "$THREADS" 2>&1 | sed -n 's/.*median \([0-9.]*\) ms.*/\1/p')
  echo "${r:--}"
}

median() { tr ' ' '\n' | grep -v '^-*$' | sort -g | awk '{ v[NR] = $1 } END { print NR ? v[int((NR + 1) / 2)] : "-" }'; }

c1=$(compile mlcc "$b/mlcc")
c2=-
[ -z "$peer" ] || c2=$(compile peer "$peer")
r1="" r2=""
for round in $(seq "$ROUNDS"); do   # alternating, so both see the same load
  r1="$r1 $(run mlcc "$b/mlcc")"
  [ -z "$peer" ] || r2="$r2 $(run peer "$peer")"
done
m1=$(echo $r1 | median)
m2=$(echo $r2 | median)
lines() { wc -l < "$out/$1/model.c" 2>/dev/null || echo -; }
printf '%-6s compile %8s ms   run %10s ms (median of %s rounds)   model.c %s lines\n' mlcc "$c1" "$m1" "$ROUNDS" "$(lines mlcc)"
[ -n "$peer" ] || exit 0
printf '%-6s compile %8s ms   run %10s ms (median of %s rounds)   model.c %s lines\n' peer "$c2" "$m2" "$ROUNDS" "$(lines peer)"
if [ "$c1" != - ] && [ "$c2" != - ] && [ "$m1" != - ] && [ "$m2" != - ]; then
  awk -v a="$c1" -v b="$c2" -v x="$m1" -v y="$m2" \
    'BEGIN { printf "ratio mlcc/peer: compile %.4f, run %.3f\n", a / b, x / y }'
fi
