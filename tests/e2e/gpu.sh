#!/bin/sh
# gpu.sh - the GPU targets from the command line: the course's vector add
# scheduled for a GPU, built with `mlcc build --target opencl` (and cuda),
# run with `mlcc run` on the first OpenCL device (PoCL on a machine without
# a GPU) and compared with the CPU build of the unscheduled program on the
# same inputs.  Prints ok / FAIL / skip lines like run.sh, and leaves the
# file opencl_runs when OpenCL ran (run.sh then builds its network for it).
#   sh tests/e2e/gpu.sh MLCC SCRATCH_DIR
set -u
MLCC=$1
dir=$2/gpu
golden=tests/golden/gpu/vector_add
mkdir -p "$dir" || exit 2

fail() { # NAME REASON [FILE]
  echo "FAIL e2e gpu: $1: $2"
  if [ $# -ge 3 ] && [ -s "$3" ]; then head -n 12 "$3" | sed 's/^/    /'; fi
}

if ! "$MLCC" schedule "$golden/before.py" "$golden/schedule.py" >"$dir/add.py" 2>"$dir/err"; then
  fail "schedule" "mlcc schedule failed" "$dir/err"; exit 0
fi
if ! "$MLCC" build "$dir/add.py" -o "$dir/add.so" --target opencl 2>"$dir/err"; then
  fail "build --target opencl" "failed" "$dir/err"; exit 0
fi
if [ -f "$dir/add.so" ] && [ -f "$dir/add.c" ] && grep -q '__kernel void add_kernel' "$dir/add.cl"; then
  echo "ok e2e gpu: build --target opencl writes add.so, add.c and add.cl"
else
  fail "build --target opencl" "add.so, add.c or add.cl missing"
fi
"$MLCC" build "$golden/before.py" -o "$dir/cpu.so" 2>"$dir/err" || { fail "CPU build" "failed" "$dir/err"; exit 0; }

# run: inputs made by --fill random are written back with --out, so the CPU
# build can be given the same ones
if "$MLCC" run "$dir/add.so" --func add --fill random --out "$dir/a.npy" --out "$dir/b.npy" --out "$dir/c.npy" \
     >"$dir/out" 2>"$dir/err"; then
  if "$MLCC" run "$dir/cpu.so" --func add --in "$dir/a.npy" --in "$dir/b.npy" --out "$dir/c_cpu.npy" 2>"$dir/err2" &&
     cmp -s "$dir/c.npy" "$dir/c_cpu.npy"; then
    echo "ok e2e gpu: mlcc run on OpenCL gives the CPU build's answers"
    : >"$dir/opencl_runs" # run.sh then runs the e2e network on OpenCL too
  else
    fail "run" "the OpenCL result differs from the CPU build's" "$dir/err2"
  fi
elif grep -q -e 'OpenCL: no platform' -e 'OpenCL: libOpenCL.so.1 cannot be loaded' "$dir/err"; then
  echo "skip e2e gpu: mlcc run on OpenCL: $(head -n 1 "$dir/err")"
else
  fail "run" "mlcc run failed" "$dir/err"
fi

# CUDA: the module builds anywhere; it runs where a driver is, and is
# refused with the driver's absence named where none is
if "$MLCC" build "$dir/add.py" -o "$dir/addcu.so" --target cuda 2>"$dir/err" &&
   grep -q 'extern "C" __global__ void add_kernel' "$dir/addcu.cu"; then
  echo "ok e2e gpu: build --target cuda writes addcu.cu"
else
  fail "build --target cuda" "failed" "$dir/err"
fi
"$MLCC" run "$dir/addcu.so" --func add --fill random >"$dir/out" 2>"$dir/err"
rc=$?
if [ "$rc" -eq 0 ] || { [ "$rc" -eq 2 ] && grep -q 'add: CUDA: ' "$dir/err"; }; then
  echo "ok e2e gpu: mlcc run on CUDA runs, or names what is missing"
else
  fail "run --target cuda" "exit $rc" "$dir/err"
fi

exit 0
