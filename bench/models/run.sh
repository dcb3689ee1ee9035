#!/bin/sh
# run.sh - mlcc against ONNX Runtime on whole models (bench/README.md).
#
# Sets up what it needs under BUILD/bench-models (a Python venv with onnx,
# numpy and onnxruntime from PyPI, plus the rapidocr-onnxruntime package for
# the PP-OCRv4 models it ships), generates the models, and for each one:
# makes a seeded random input and ORT's outputs on it, compiles the model
# with mlcc, checks mlcc's outputs against ORT's (max |mlcc - ORT| / max |ORT|
# <= TOL), then times both at each thread count, alternating the two
# (mlcc, ORT, mlcc, ORT, ...) for ROUNDS rounds, each a separate process.
# Medians pool every timed run of all rounds; the ratio mlcc/ORT is what to
# read on a shared machine.  A model mlcc cannot compile, or whose outputs do
# not match, gets a row saying so with mlcc's message; the run goes on, and
# exits 1 at the end if any check failed.
#
# Usage: bench/models/run.sh [BUILD]    (from the repository root; BUILD
# defaults to build; `make bench-models` builds mlcc and the timer and calls this)
# Environment: ROUNDS (3), THREADS ("1 2"), BUDGET_MS (1500: time per side
# per round), MIN_REPS (2: runs per side per round at least), TOL (1e-3),
# MODELS (a subset of: mlp transformer mobilenetv2 resnet18 ocr_det ocr_rec ocr_cls),
# CLOCK (wall; cpu: each side's process CPU time per inference, which other
# jobs on a busy machine barely move -- read it at 1 thread only, since at 2
# it adds the threads' times up), RECORDS (a folder: a model NAME is compiled
# with --records RECORDS/NAME.jsonl where that file exists, i.e. tuned;
# bench/tune/models.sh makes them).
set -eu
b=${1:-build}
out=$b/bench-models
mlcc=$b/mlcc
timer=$out/timer
ROUNDS=${ROUNDS:-3}
THREADS=${THREADS:-1 2}
BUDGET_MS=${BUDGET_MS:-1500}
MIN_REPS=${MIN_REPS:-2}
CLOCK=${CLOCK:-wall}
case "$CLOCK" in
  wall|cpu) ;;
  *) echo "run.sh: CLOCK must be wall or cpu, not '$CLOCK'" >&2; exit 2 ;;
esac
export MLC_BENCH_CLOCK=$CLOCK
TOL=${TOL:-1e-3}
MODELS=${MODELS:-mlp transformer mobilenetv2 resnet18 ocr_det ocr_rec ocr_cls}
here=$(dirname "$0")
# the generators import onnxgen.py: keep Python's byte code out of the source tree
export PYTHONDONTWRITEBYTECODE=1
for f in "$mlcc" "$timer"; do
  if [ ! -x "$f" ]; then
    echo "run.sh: $f not built (run: make bench-models)" >&2
    exit 2
  fi
done

# ---- the Python side: a venv of our own, made once -----------------------------
# rapidocr-onnxruntime comes without its dependencies (OpenCV and others, for
# its pipeline): only its .onnx files are used.
py=$out/venv/bin/python
if [ ! -f "$out/venv/.ready" ]; then
  echo "setting up $out/venv (onnx, numpy, onnxruntime, rapidocr-onnxruntime from PyPI)"
  rm -rf "$out/venv"
  mkdir -p "$out"
  python3 -m venv "$out/venv"
  "$py" -m pip install -q --disable-pip-version-check onnx numpy onnxruntime
  "$py" -m pip install -q --disable-pip-version-check --no-deps rapidocr-onnxruntime
  touch "$out/venv/.ready"
fi
ocr_dir=$("$py" -c 'import importlib.util, os; print(os.path.dirname(importlib.util.find_spec("rapidocr_onnxruntime").origin))')
ocr_model() { find "$ocr_dir" -name "*$1*.onnx" | sort | head -n 1; }

# ---- the machine ------------------------------------------------------------------
cpu=$(sed -n 's/^model name[[:space:]]*:[[:space:]]*//p' /proc/cpuinfo 2>/dev/null | head -n 1)
flags=" $(sed -n 's/^flags[[:space:]]*:[[:space:]]*//p' /proc/cpuinfo 2>/dev/null | head -n 1) "
ext=''
for f in sse4_2 avx fma avx2 avx512f avx512dq avx512bw avx512vl avx512_vnni avx512_bf16 avx512_fp16 amx_tile; do
  case "$flags" in *" $f "*) ext="$ext $f" ;; esac
done
load() { cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown; }
echo "CPU: ${cpu:-unknown} ($(nproc) cores available)"
echo "vector extensions:${ext:- none found}"
echo "date: $(date -u '+%Y-%m-%d %H:%M UTC'), load average: $(load)"
echo "versions: $("$py" -c 'import onnxruntime, onnx, numpy; print("onnxruntime", onnxruntime.__version__, "onnx", onnx.__version__, "numpy", numpy.__version__)'), rapidocr-onnxruntime $("$py" -m pip show rapidocr-onnxruntime 2>/dev/null | sed -n 's/^Version: //p'), $(${CC:-cc} --version | head -n 1)"
echo "settings: ROUNDS=$ROUNDS THREADS='$THREADS' BUDGET_MS=$BUDGET_MS MIN_REPS=$MIN_REPS TOL=$TOL CLOCK=$CLOCK RECORDS=${RECORDS:-}"
echo

# ---- per model ---------------------------------------------------------------------
mkdir -p "$out/models" "$out/runs"
rows=$out/runs/rows.md
: > "$rows"
failed=0

median() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{ v[NR] = $1 } END {
  if (NR == 0) print "nan"; else if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
# a log as one table cell: lines joined, the model's path dropped, at most 200 characters
oneline() { sed "s|^$onnx: ||" "$1" | tr '\n|' ' /' | tr -s ' ' | sed 's/ $//' | cut -c1-200; }
row() { echo "| $1 | $2 | $3 | $4 | $5 | $6 | $7 | $8 |" >> "$rows"; }

bench_model() {  # NAME ONNX INPUT [SHAPE-ARG]
  name=$1 onnx=$2 input=$3 shape=${4:-}
  w=$out/runs/$name
  rm -rf "$w.mlcc"
  echo "== $name ($input)"
  if ! "$py" "$here/ort_side.py" ref "$onnx" "$w.in.npz" "$w.ref.npz" $shape 2> "$w.log"; then
    row "$name" "$input" "ORT failed: $(oneline "$w.log")" - - - - -
    return
  fi
  set -- ${shape:+--input-shape} $shape
  if [ -n "${RECORDS:-}" ] && [ -f "$RECORDS/$name.jsonl" ]; then
    set -- "$@" --records "$RECORDS/$name.jsonl"
    echo "   tuned: --records $RECORDS/$name.jsonl"
  fi
  if ! "$mlcc" compile "$onnx" -o "$w.mlcc" "$@" > "$w.log" 2>&1; then
    echo "   mlcc cannot compile it: $(oneline "$w.log")"
    row "$name" "$input" "mlcc cannot compile it: $(oneline "$w.log")" - - - - -
    return
  fi
  if ! "$mlcc" run "$w.mlcc" --in "$w.in.npz" --out "$w.out.npz" > "$w.log" 2>&1; then
    row "$name" "$input" "mlcc run failed: $(oneline "$w.log")" - - - - -
    failed=1
    return
  fi
  if err=$("$py" "$here/ort_side.py" compare "$w.ref.npz" "$w.out.npz" "$TOL"); then
    check="ok, $err"
  else
    check="**mismatch**: $err"
    failed=1
  fi
  echo "   check against ORT: $check"
  for t in $THREADS; do
    : > "$w.mlcc.$t"
    : > "$w.ort.$t"
    r=0
    while [ "$r" -lt "$ROUNDS" ]; do
      MLCRT_NUM_THREADS=$t OPENBLAS_NUM_THREADS=$t "$timer" "$w.mlcc" "$w.in.npz" "$t" "$BUDGET_MS" "$MIN_REPS" \
        | sed -n 's/^ms //p' >> "$w.mlcc.$t"
      "$py" "$here/ort_side.py" time "$onnx" "$w.in.npz" "$t" "$BUDGET_MS" "$MIN_REPS" \
        | sed -n 's/^ms //p' >> "$w.ort.$t"
      r=$((r + 1))
    done
    m=$(median < "$w.mlcc.$t")
    o=$(median < "$w.ort.$t")
    n_m=$(wc -w < "$w.mlcc.$t" | tr -d ' ')
    n_o=$(wc -w < "$w.ort.$t" | tr -d ' ')
    ratio=$(awk -v m="$m" -v o="$o" 'BEGIN { printf "%.1f", m / o }')
    fm=$(awk -v x="$m" 'BEGIN { printf (x < 10 ? "%.3f" : "%.1f"), x }')
    fo=$(awk -v x="$o" 'BEGIN { printf (x < 10 ? "%.3f" : "%.1f"), x }')
    echo "   $t thread(s): mlcc $fm ms, ORT $fo ms (medians of $n_m and $n_o runs), mlcc/ORT $ratio"
    row "$name" "$input" "$check" "$t" "$fm" "$fo" "$ratio" "$n_m / $n_o"
  done
}

for m in $MODELS; do
  case $m in
    mlp | transformer | mobilenetv2 | resnet18)
      "$py" "$here/gen_$m.py" "$out/models/$m.onnx" ;;
  esac
  case $m in
    mlp) bench_model mlp "$out/models/mlp.onnx" 1x784 ;;
    transformer) bench_model transformer "$out/models/transformer.onnx" 1x128x256 ;;
    mobilenetv2) bench_model mobilenetv2 "$out/models/mobilenetv2.onnx" 1x3x224x224 ;;
    resnet18) bench_model resnet18 "$out/models/resnet18.onnx" 1x3x224x224 ;;
    ocr_det) bench_model ocr_det "$(ocr_model PP-OCRv4_det)" 1x3x640x640 x:1x3x640x640 ;;
    ocr_rec) bench_model ocr_rec "$(ocr_model PP-OCRv4_rec)" 1x3x48x320 x:1x3x48x320 ;;
    ocr_cls) bench_model ocr_cls "$(ocr_model _cls)" 1x3x48x192 x:1x3x48x192 ;;
    *) echo "run.sh: unknown model '$m'" >&2; exit 2 ;;
  esac
done

echo
echo "load average at the end: $(load)"
echo
echo "| model | input | check: max err / max ref | threads | mlcc ($CLOCK ms, median) | ORT ($CLOCK ms, median) | mlcc/ORT | runs mlcc / ORT |"
echo "|---|---|---|---|---|---|---|---|"
cat "$rows"
exit $failed
