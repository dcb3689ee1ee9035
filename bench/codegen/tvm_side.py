# tvm_side.py - the peer side of the codegen benchmark: the same matmul
# programs built by Apache TVM's LLVM backend, for the ratios in
# bench/README.md.  mlcc never needs TVM; run.sh calls this only when
# MLC_TVM_PYTHON names a Python that has apache-tvm (0.27: the tirx / s_tir
# packages), once per thread count (TVM_NUM_THREADS is read when its runtime
# starts).
#
# Each program is the matmul as the field's tensor expressions write it (one
# block "C" under the root block, function "main"), scheduled by the same
# script file mlcc replays (the scripts are Python: `sch.PRIMITIVE(...)`
# lines; get_block is the older name of get_sblock), compiled for LLVM with
# the host's -mcpu and vector features, checked against numpy, and timed as
# bench.c times mlcc: 9 samples of about 0.05 s, median and fastest.
#
# Usage: python tvm_side.py [NAME ...]   (from the repository root)
import os
import sys
import time

import numpy as np
import tvm
from tvm import te

PROGRAMS = [  # name, size, schedule script (None: unscheduled)
    ("unscheduled-128", 128, None),
    ("sampled-128", 128, "bench/codegen/sampled_128.py"),
    ("tuned-128", 128, "tests/golden/schedule/tuned_matmul_128/schedule.py"),
    ("tuned-1024", 1024, "tests/golden/schedule/tuned_matmul_1024/schedule.py"),
]


def matmul(n):
    a = te.placeholder((n, n), "float32", name="A")
    b = te.placeholder((n, n), "float32", name="B")
    k = te.reduce_axis((0, n), name="k")
    c = te.compute((n, n), lambda i, j: te.sum(a[i, k] * b[k, j], axis=k), name="C")
    return tvm.IRModule({"main": te.create_prim_func([a, b, c]).with_attr("global_symbol", "main")})


class Renamed:
    """The schedule, answering to the older primitive names too."""

    def __init__(self, sch):
        self.sch = sch

    def __getattr__(self, name):
        return getattr(self.sch, {"get_block": "get_sblock"}.get(name, name))


def build(n, script, mcpu):
    sch = tvm.s_tir.Schedule(matmul(n))
    if script:
        with open(script) as f:
            exec(compile(f.read(), script, "exec"), {"sch": Renamed(sch)})
    return tvm.compile(sch.mod, target={"kind": "llvm", "mcpu": mcpu})["main"]


def bench(fn, n):
    rng = np.random.default_rng(1)
    a = rng.uniform(-1, 1, (n, n)).astype("float32")
    b = rng.uniform(-1, 1, (n, n)).astype("float32")
    dev = tvm.cpu()
    ta, tb, tc = (tvm.runtime.tensor(x, dev) for x in (a, b, np.full((n, n), np.nan, "float32")))
    fn(ta, tb, tc)
    ref = a.astype("float64") @ b.astype("float64")
    err = np.abs(tc.numpy() - ref).max() / np.abs(ref).max()
    if not err <= 1e-4:
        raise SystemExit(f"tvm_side: max rel err {err:.3g}")
    t0 = time.perf_counter()
    fn(ta, tb, tc)
    calls = max(1, int(0.05 / max(time.perf_counter() - t0, 1e-9)))
    samples = []
    for _ in range(9):
        time.sleep(0.2)
        t0 = time.perf_counter()
        for _ in range(calls):
            fn(ta, tb, tc)
        samples.append((time.perf_counter() - t0) / calls)
    samples.sort()
    return 2.0 * n**3 / samples[4] * 1e-9, 2.0 * n**3 / samples[0] * 1e-9


def main():
    mcpu = os.environ.get("MLC_TVM_MCPU") or tvm.target.codegen.llvm_get_system_cpu()
    only = set(sys.argv[1:])
    print(f"TVM {tvm.__version__}, LLVM target mcpu={mcpu}, TVM_NUM_THREADS={os.environ.get('TVM_NUM_THREADS', 'unset')}")
    for name, n, script in PROGRAMS:
        if only and name not in only:
            continue
        median, best = bench(build(n, script, mcpu), n)
        print(f"{name + ' (TVM)':<22} {n:5d} {median:8.1f} {best:8.1f}", flush=True)


if __name__ == "__main__":
    main()
