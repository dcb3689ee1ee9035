#!/bin/sh
# run.sh - the course's 1024^3 matmul on OpenCL: the schedule of
# tests/golden/gpu/matmul_shared_tiles (8 x 8 threads per block, a 4 x 4
# register tile per thread, A and B tiles in shared memory) applied to the
# 1024^3 program, built with --target opencl and timed with `mlcc run
# --time` on the first OpenCL device (PoCL's CPU device where there is no
# GPU), beside the same program built for the CPU with mlcc's default
# schedules.  Not a test: numbers for a person to read (bench/README.md).
#   sh bench/gpu/run.sh [BUILD]     (from the repository root)
set -eu
b=${1:-build}
mlcc=$b/mlcc
out=$b/bench-gpu
case=tests/golden/gpu/matmul_shared_tiles
[ -x "$mlcc" ] || { echo "run.sh: $mlcc not built (run: make)" >&2; exit 2; }
mkdir -p "$out"
sed 's/256/1024/g' "$case/before.py" >"$out/mm1024.py"
"$mlcc" schedule "$out/mm1024.py" "$case/schedule.py" >"$out/mm1024_gpu.py"
"$mlcc" build "$out/mm1024_gpu.py" -o "$out/mm_opencl.so" --target opencl
# the CPU side: the graph pipeline's default rules, through a one-call model
cat >"$out/mm_model.py" <<'PY'
from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Module:
    @R.function
    def main(a: R.Tensor((1024, 1024), "float32"), b: R.Tensor((1024, 1024), "float32")) -> R.Tensor((1024, 1024), "float32"):
        with R.dataflow():
            c = R.matmul(a, b)
            R.output(c)
        return c
PY
"$mlcc" build "$out/mm_model.py" -o "$out/mm_cpu" 2>/dev/null
echo "1024^3 matmul, 2.15 GFLOP per call"
echo "opencl (the course's schedule):"
"$mlcc" run "$out/mm_opencl.so" --func main --fill random --time
echo "cpu (default rules or library dispatch):"
"$mlcc" run "$out/mm_cpu" --fill random --time
