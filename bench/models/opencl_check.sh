#!/bin/sh
# opencl_check.sh - whole models through OpenCL with the CPU build's answers.
#
# For each model of MODELS (default: transformer resnet18, from the
# generators beside this script): `mlcc compile` it twice, for the CPU and
# with --target opencl (every kernel bound by the default GPU rule, run on
# the first OpenCL device: PoCL's CPU device where there is no GPU), run
# both on one seeded random input and compare the outputs
# (max |opencl - cpu| / max |cpu| <= TOL).  Exits 1 when a model fails.
#
# Usage: bench/models/opencl_check.sh [BUILD]   (from the repository root;
# BUILD defaults to build).  The Python side (onnx, numpy) is the venv that
# run.sh makes under BUILD/bench-models; made here with onnx and numpy only
# when missing.  Environment: MODELS, TOL (1e-4).
set -eu
b=${1:-build}
out=$b/bench-models/opencl
mlcc=$b/mlcc
MODELS=${MODELS:-transformer resnet18}
TOL=${TOL:-1e-4}
here=$(dirname "$0")
export PYTHONDONTWRITEBYTECODE=1
[ -x "$mlcc" ] || { echo "opencl_check.sh: $mlcc not built (run: make)" >&2; exit 2; }
mkdir -p "$out"
venv=$b/bench-models/venv
py=$venv/bin/python
if ! "$py" -c 'import onnx, numpy' 2>/dev/null; then
  echo "setting up $venv (onnx, numpy from PyPI)"
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q onnx numpy
fi
status=0
for m in $MODELS; do
  "$py" "$here/gen_$m.py" "$out/$m.onnx"
  "$py" - "$out/$m.onnx" "$out/$m.x.npz" <<'PY'
import sys, numpy as np, onnx
g = onnx.load(sys.argv[1]).graph
inits = {i.name for i in g.initializer}
rng = np.random.default_rng(0)
xs = {}
for i in g.input:
    if i.name in inits: continue
    dims = [d.dim_value or 1 for d in i.type.tensor_type.shape.dim]
    xs[i.name] = rng.standard_normal(dims).astype(np.float32)
np.savez(sys.argv[2], **xs)
PY
  for t in cpu opencl; do
    flags=""
    [ "$t" = opencl ] && flags="--target opencl"
    # shellcheck disable=SC2086
    "$mlcc" compile "$out/$m.onnx" -o "$out/$m.$t" $flags 2>"$out/$m.$t.log"
    start=$(date +%s)
    "$mlcc" run "$out/$m.$t" --in "$out/$m.x.npz" --out "$out/$m.$t.y.npz" 2>>"$out/$m.$t.log"
    echo "$m: $t run in $(( $(date +%s) - start )) s"
  done
  if "$py" - "$out/$m.cpu.y.npz" "$out/$m.opencl.y.npz" "$TOL" <<'PY'
import sys, numpy as np
a, b, tol = np.load(sys.argv[1]), np.load(sys.argv[2]), float(sys.argv[3])
worst = max(float(np.abs(a[k] - b[k]).max() / max(np.abs(a[k]).max(), 1e-30)) for k in a.files)
print(f"max |opencl - cpu| / max |cpu| = {worst:.3g}")
sys.exit(0 if worst <= tol else 1)
PY
  then echo "$m: ok"
  else echo "$m: FAIL (over $TOL)"; status=1
  fi
done
exit $status
