#!/bin/sh
# run.sh - real models as tests: models shipped in ordinary packages,
# compiled with mlcc and compared with ONNX Runtime on fixed inputs.
#
# Sets up a Python venv of its own under BUILD/models (onnx, numpy and
# onnxruntime from PyPI; silero-vad and rapidocr-onnxruntime without their
# dependencies, since only their .onnx files are used).  When the package
# registry does not answer, says so and exits 0: the check is skipped, not
# passed.  For each model: the seeded input and ORT's outputs on it
# (bench/models/ort_side.py), `mlcc compile`, `mlcc run`, and the outputs
# compared by name (max |mlcc - ORT| / max |ORT| within the model's
# tolerance: 1e-4, and 1e-3 for the 150-layer PP-OCRv4 detector, whose
# outputs differ from ORT's by 1.4e-4 at 640x640).  Prints a table and exits
# 1 when a model is refused, fails to run or does not match.
#
# Usage: tests/models/run.sh [BUILD]   (`make models` builds mlcc and calls it)
# Environment: MODELS (a subset of: silero_vad ocr_det ocr_rec ocr_cls)
set -eu
b=${1:-build}
out=$b/models
mlcc=$b/mlcc
MODELS=${MODELS:-silero_vad ocr_det ocr_rec ocr_cls}
ort_side=$(dirname "$0")/../../bench/models/ort_side.py
export PYTHONDONTWRITEBYTECODE=1
if [ ! -x "$mlcc" ]; then
  echo "models: $mlcc not built (run: make models)" >&2
  exit 2
fi

# ---- the Python side, made once ------------------------------------------------------
py=$out/venv/bin/python
if [ ! -f "$out/venv/.ready" ]; then
  echo "models: setting up $out/venv (onnx, numpy, onnxruntime, silero-vad, rapidocr-onnxruntime from PyPI)"
  rm -rf "$out/venv"
  mkdir -p "$out"
  if ! python3 -m venv "$out/venv" > "$out/setup.log" 2>&1 ||
     ! "$py" -m pip install -q --disable-pip-version-check --timeout 30 onnx numpy onnxruntime >> "$out/setup.log" 2>&1 ||
     ! "$py" -m pip install -q --disable-pip-version-check --timeout 30 --no-deps silero-vad rapidocr-onnxruntime \
       >> "$out/setup.log" 2>&1; then
    echo "models: skipped: the packages could not be installed (is the package registry reachable?); see $out/setup.log"
    rm -rf "$out/venv"
    exit 0
  fi
  touch "$out/venv/.ready"
fi
site=$("$py" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
find_model() { find "$site/$1" -name "$2" | sort | head -n 1; }

# ---- per model -------------------------------------------------------------------------
mkdir -p "$out/runs"
rows=$out/runs/rows.md
: > "$rows"
failed=0
oneline() { tr '\n|' ' /' < "$1" | tr -s ' ' | sed 's/ $//' | cut -c1-200; }

# NAME ONNX DESCRIPTION TOL [NAME:DIMS | NAME=V,...]...: the shapes and
# values go to both sides (mlcc's --input-shape / --input-value)
check_model() {
  name=$1 onnx=$2 what=$3 tol=$4
  shift 4
  w=$out/runs/$name
  rm -rf "$w.mlcc"
  if [ -z "$onnx" ] || [ ! -f "$onnx" ]; then
    echo "| $name | $what | **not found** in the installed package | - | $tol |" >> "$rows"
    failed=1
    return
  fi
  flags=''
  for a in "$@"; do
    case "$a" in
      *=*) flags="$flags --input-value $a" ;;
      *) flags="$flags --input-shape $a" ;;
    esac
  done
  if ! "$py" "$ort_side" ref "$onnx" "$w.in.npz" "$w.ref.npz" "$@" > "$w.log" 2>&1; then
    echo "| $name | $what | ORT failed: $(oneline "$w.log") | - | $tol |" >> "$rows"
    failed=1
    return
  fi
  # shellcheck disable=SC2086 # flags holds words by design
  if ! "$mlcc" compile "$onnx" -o "$w.mlcc" $flags > "$w.log" 2>&1; then
    echo "| $name | $what | **refused**: $(oneline "$w.log") | - | $tol |" >> "$rows"
    failed=1
    return
  fi
  if ! "$mlcc" run "$w.mlcc" --in "$w.in.npz" --out "$w.out.npz" > "$w.log" 2>&1; then
    echo "| $name | $what | **run failed**: $(oneline "$w.log") | - | $tol |" >> "$rows"
    failed=1
    return
  fi
  if err=$("$py" "$ort_side" compare "$w.ref.npz" "$w.out.npz" "$tol" 2>&1); then
    echo "| $name | $what | ok | $err | $tol |" >> "$rows"
  else
    echo "| $name | $what | **mismatch** | $err | $tol |" >> "$rows"
    failed=1
  fi
}

for m in $MODELS; do
  echo "models: $m"
  case $m in
    silero_vad) check_model silero_vad "$(find_model silero_vad silero_vad.onnx)" \
                "silero-vad as shipped, 16 kHz (sr=16000 given)" 1e-4 input:1x512 state:2x1x128 sr=16000 ;;
    ocr_det) check_model ocr_det "$(find_model rapidocr_onnxruntime '*PP-OCRv4_det*.onnx')" \
             "PP-OCRv4 det, 1x3x640x640" 1e-3 x:1x3x640x640 ;;
    ocr_rec) check_model ocr_rec "$(find_model rapidocr_onnxruntime '*PP-OCRv4_rec*.onnx')" \
             "PP-OCRv4 rec, 1x3x48x320" 1e-4 x:1x3x48x320 ;;
    ocr_cls) check_model ocr_cls "$(find_model rapidocr_onnxruntime '*_cls*.onnx')" \
             "PP-OCR cls, 1x3x48x192" 1e-4 x:1x3x48x192 ;;
    *) echo "models: unknown model '$m'" >&2; exit 2 ;;
  esac
done

echo
echo "| model | input | mlcc against ONNX Runtime | max \|mlcc - ORT\| / max \|ORT\| | tolerance |"
echo "|---|---|---|---|---|"
cat "$rows"
exit $failed
