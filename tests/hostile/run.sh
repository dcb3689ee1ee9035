#!/bin/sh
# run.sh - the hostile-input corpus: each case runs mlcc on a file made to
# hurt it (garbage and truncated protobufs, nesting thousands deep, dims that
# claim gigabytes, external data outside the model's folder, malformed .npy,
# unrolled loops that multiply, schedules that cannot build) under a memory
# limit of twice the input plus 256 MB (`ulimit -v`) and a time limit, and
# checks that it is refused cleanly: exit status 2, a message, no
# signal, no sanitizer report.  A few must instead complete (status 0)
# within the same limits.  Prints "ok NAME" / "FAIL NAME: ..." lines for
# tests/run.sh.  A sanitizer build reserves terabytes of address space, so
# under it only the time limit applies.
#   sh tests/hostile/run.sh MLCC SCRATCH_DIR
set -u
MLCC=$1
dir=$2
here=$(dirname "$0")
mkdir -p "$dir" || exit 2
TIME_LIMIT=${HOSTILE_TIME_LIMIT:-60}
case "$MLCC" in
  */san/*) limit_memory=0 ;;
  *) limit_memory=1 ;;
esac

# hostile NAME WANT INPUT ARGS...: WANT is refused or ok; INPUT sizes the
# memory limit
hostile() {
  name="hostile: $1" want=$2 input=$3
  shift 3
  bytes=$(wc -c <"$input" 2>/dev/null || echo 0)
  kb=$(( (2 * bytes) / 1024 + 256 * 1024 ))
  (
    [ "$limit_memory" = 1 ] && ulimit -v "$kb"
    exec timeout "$TIME_LIMIT" "$MLCC" "$@"
  ) >"$dir/out" 2>"$dir/err"
  rc=$?
  if [ "$rc" -ge 124 ]; then
    if [ "$rc" -eq 124 ]; then why="timed out after ${TIME_LIMIT}s"; else why="died with status $rc"; fi
    echo "FAIL $name: $why"; head -n 4 "$dir/err" | sed 's/^/    /'; return
  fi
  if grep -q -e 'Sanitizer' -e 'runtime error:' "$dir/err"; then
    echo "FAIL $name: sanitizer report"; head -n 8 "$dir/err" | sed 's/^/    /'; return
  fi
  case "$want" in
    refused)
      if [ "$rc" -ne 2 ]; then echo "FAIL $name: expected exit 2, got $rc"; head -n 4 "$dir/err" | sed 's/^/    /'; return; fi
      [ -s "$dir/err" ] || { echo "FAIL $name: no message on stderr"; return; } ;;
    ok)
      if [ "$rc" -ne 0 ]; then echo "FAIL $name: expected exit 0, got $rc"; head -n 4 "$dir/err" | sed 's/^/    /'; return; fi ;;
  esac
  echo "ok $name"
}

# made here: bytes that are no model, a model cut short
printf '\377\377\377\377\377\377\377\377\377\377\017' >"$dir/bad_varint.onnx"
: >"$dir/empty.onnx"
head -c 40 "$here/deep_types.onnx" >"$dir/cut.onnx"

for f in garbage truncated deep_if deep_types huge_dims external_outside; do
  hostile "$f.onnx import" refused "$here/$f.onnx" import "$here/$f.onnx"
  hostile "$f.onnx compile" refused "$here/$f.onnx" compile "$here/$f.onnx" -o "$dir/m_$f"
done
for f in bad_varint empty cut; do
  hostile "$f.onnx import" refused "$dir/$f.onnx" import "$dir/$f.onnx"
done
# sizes past int64 are a shape, not an allocation: building works, running refuses
hostile "overflowing_dims.onnx compile" ok "$here/overflowing_dims.onnx" \
  compile "$here/overflowing_dims.onnx" -o "$dir/m_overflow"
if [ -d "$dir/m_overflow" ]; then
  hostile "overflowing_dims.onnx run" refused "$here/overflowing_dims.onnx" run "$dir/m_overflow" --fill random
fi

# malformed .npy inputs of a model built from the corpus's text
printf 'from tvm.script import tir as T\n@T.prim_func\ndef f(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32")):\n    for i in range(4):\n        with T.block("B"):\n            vi = T.axis.spatial(4, i)\n            B[vi] = A[vi] + T.float32(1)\n' >"$dir/f.py"
if "$MLCC" build "$dir/f.py" -o "$dir/f.so" 2>"$dir/err"; then
  for f in huge_shape truncated_header; do
    hostile "$f.npy run" refused "$here/$f.npy" run "$dir/f.so" --in "$here/$f.npy"
  done
  printf 'PK\003\004' >"$dir/bad.npz"
  hostile "bad.npz run" refused "$dir/bad.npz" run "$dir/f.so" --in "$dir/bad.npz"
  # an output that cannot be written: refused, the path named once
  hostile "run --out into a missing folder" refused "$dir/f.py" run "$dir/f.so" --fill random --out "$dir/none/y.npy"
  n=$(grep -o "$dir/none/y.npy" "$dir/err" | wc -l)
  [ "$n" -eq 1 ] || { echo "FAIL hostile: run --out names the path $n times"; sed 's/^/    /' "$dir/err"; }
else
  echo "FAIL hostile: building the .npy case's function failed"; head -n 4 "$dir/err" | sed 's/^/    /'
fi

# work that would explode: nested unrolled loops build within the limits;
# a schedule vectorizing 4096 lanes is refused at its line
hostile "unroll_bomb.py build" ok "$here/unroll_bomb.py" build "$here/unroll_bomb.py" -o "$dir/bomb.so"
hostile "vectorize_too_wide schedule" refused "$here/vectorize_too_wide.sched.py" \
  schedule "$here/../golden/schedule/vectorize_error_too_wide/before.py" "$here/vectorize_too_wide.sched.py"
hostile "deep_brackets.py fmt" refused "$here/../golden/errors/deep_brackets.py" fmt "$here/../golden/errors/deep_brackets.py"
exit 0
