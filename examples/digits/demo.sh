#!/bin/sh
# demo.sh - `make demo`: the digits example from nothing to an accuracy.
# Trains the network (train.c), compiles model.py with the trained weights
# into a model directory, renders a test batch (make_batch.c), runs the
# compiled model on it with `mlcc run --time` and checks its answers against
# the labels (check.c).  The helper programs link against the runtime library
# alone, as any program using a compiled model would.
#   sh examples/digits/demo.sh BUILD_DIR [OUT_DIR]      (from the repository root)
# BUILD_DIR holds mlcc and libmlcrt.a; everything made goes to OUT_DIR
# (default BUILD_DIR/demo).  Exits non-zero when a step fails or the accuracy
# is below 90%, so the test suite runs it too.
set -eu
bin=${1:-build}
here=$(dirname "$0")
out=${2:-$bin/demo}
mlcc=$bin/mlcc
CC=${CC:-cc}
N=1000
# a sanitizer build's runtime needs the sanitizers in the programs too
case "$bin" in
  */san) san="-fsanitize=address,undefined" ;;
  *) san="" ;;
esac
mkdir -p "$out"

step() { printf '\n== %s\n' "$*"; }

step "compile the example's programs against the runtime library ($bin/libmlcrt.a)"
for p in train make_batch check; do
  $CC -std=c11 -O2 $san -D_POSIX_C_SOURCE=200809L -Iinclude "$here/$p.c" "$bin/libmlcrt.a" \
    -lpthread -ldl -lz -lm -o "$out/$p"
done

step "train the network on rendered digit glyphs: $out/weights.npz"
"$out/train" "$out/weights.npz"

step "compile $here/model.py with those weights: $out/model.so, model.h, params.bin"
"$mlcc" build "$here/model.py" --params "$out/weights.npz" -o "$out"

step "render $N test images the training never saw: $out/batch.npz"
"$out/make_batch" "$out" "$N"

step "run the compiled model on the batch: $out/out.npz"
rm -f "$out/out.npz"
"$mlcc" run "$out" --in "$out/batch.npz" --out "$out/out.npz" --time >"$out/time.txt"
cat "$out/time.txt"
# mlcc times one call on the whole batch; per image is that over N
awk -v n="$N" '/ per inference/ { for (i = 1; i < NF; i++) if ($i == "mean") printf "that is %.1f us per image (batch of %d)\n", $(i + 1) * 1000 / n, n }' "$out/time.txt"

step "what the model computed, against the labels"
"$out/check" "$out/batch.npz" "$out/labels.npy" "$out/out.npz"
