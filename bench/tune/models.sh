#!/bin/sh
# models.sh - whole models of bench/models tuned by `mlcc tune` at 1 thread,
# then timed against ONNX Runtime (bench/models/run.sh with RECORDS), and the
# tuning curve: the model compiled with the records of the first T minutes
# only (each record holds its "elapsed_s"), for a few T, and timed alone.
#   sh bench/tune/models.sh [BUDGET [MODELS]]    (from the repository root,
#   after `make bench-models` has made the models and its venv)
# BUDGET: per model (default 45m); MODELS: default "resnet18 transformer".
# The databases and logs stay in build/bench/tune-models (NAME.jsonl,
# NAME.log); a second run continues from them (FRESH=1 starts over).
set -eu
budget=${1:-45m}
models=${2:-resnet18 transformer}
mlcc=build/mlcc
timer=build/bench-models/timer
py=build/bench-models/venv/bin/python
out=build/bench/tune-models
mkdir -p "$out"
for f in "$mlcc" "$timer" "$py"; do
  [ -x "$f" ] || { echo "models.sh: $f not built (run: make bench-models)" >&2; exit 2; }
done
export MLCRT_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 # the records are for 1 thread; so is the build
echo "CPU: $(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //'), $(getconf _NPROCESSORS_ONLN) online; tuning budget $budget per model"

for m in $models; do
  onnx=build/bench-models/models/$m.onnx
  [ -f "$onnx" ] || { echo "models.sh: $onnx missing (run: MODELS=$m make bench-models)" >&2; exit 2; }
  [ "${FRESH:-0}" = 1 ] && rm -f "$out/$m.jsonl"
  start=$(date +%s)
  "$mlcc" tune "$onnx" -o "$out/$m.jsonl" --threads 1 --trials 1000000 --time-budget "$budget" 2>"$out/$m.log"
  echo "== $m: tuned in $(($(date +%s) - start)) s; $(grep -c '^round' "$out/$m.log") rounds, $(wc -l < "$out/$m.jsonl") records"
  grep '^round' "$out/$m.log" | tail -n 1
  # the curve: the records of the first T minutes, the model built with
  # them, checked against ONNX Runtime and timed alone (median of 3 s of runs)
  w=$out/$m.curve
  mkdir -p "$w"
  "$py" bench/models/ort_side.py ref "$onnx" "$w/in.npz" "$w/ref.npz" >/dev/null
  last=$("$py" -c 'import json, sys; print(max([json.loads(l).get("elapsed_s", 0) for l in open(sys.argv[1])] or [0]))' "$out/$m.jsonl")
  echo "| minutes of tuning | records | mlcc 1 thread (ms, median) | check against ORT |"
  echo "|---|---|---|---|"
  for mins in 0 5 10 20 30 45 60 90; do
    awk -v m="$mins" -v l="$last" 'BEGIN { exit !(m * 60 > l + 60) }' && break
    "$py" -c '
import json, sys
with open(sys.argv[1]) as f, open(sys.argv[3], "w") as o:
    for line in f:
        if json.loads(line).get("elapsed_s", 0) <= float(sys.argv[2]) * 60:
            o.write(line)' "$out/$m.jsonl" "$mins" "$w/db.jsonl"
    n=$(wc -l < "$w/db.jsonl" | tr -d ' ')
    rm -rf "$w/model"
    if ! "$mlcc" compile "$onnx" -o "$w/model" --records "$w/db.jsonl" >"$w/compile.log" 2>&1 ||
      ! "$mlcc" run "$w/model" --in "$w/in.npz" --out "$w/out.npz" >/dev/null 2>&1; then
      echo "| $mins | $n | failed: $(tr '\n' ' ' < "$w/compile.log" | cut -c1-200) | |"
      continue
    fi
    check=$("$py" bench/models/ort_side.py compare "$w/ref.npz" "$w/out.npz" 1e-3 || true)
    ms=$("$timer" "$w/model" "$w/in.npz" 1 3000 5 | sed -n 's/^ms //p' | tr ' ' '\n' | grep -v '^$' | sort -g |
      awk '{ v[NR] = $1 } END { if (NR == 0) print "-"; else print v[int((NR + 1) / 2)] }')
    echo "| $mins | $n | $ms | $check |"
  done
done
# tuned and untuned against ONNX Runtime, at 1 thread
THREADS=1 MODELS=$models sh bench/models/run.sh build
THREADS=1 MODELS=$models RECORDS=$out sh bench/models/run.sh build
