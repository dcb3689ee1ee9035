"""The GPU chapter: a vector add bound to thread blocks, a window sum that
stages its input in shared memory, and the matmul with register tiles and
shared-memory tiles (the course's blocking_with_shared), scheduled from
Python, built with target="opencl" and run on the first OpenCL device
(PoCL runs them on the CPU where there is no GPU), compared with numpy.
The same programs build for "cuda" everywhere; their CUDA C is compiled
with nvcc where it exists, and run where a CUDA driver is."""
import os
import shutil
import subprocess

import numpy as np
import pytest

import mlcc

VECTOR_ADD = '''
@tvm.script.ir_module
class MyModuleVecAdd:
    @T.prim_func
    def main(A: T.Buffer((1024,), "float32"), B: T.Buffer((1024,), "float32"), C: T.Buffer((1024,), "float32")):
        T.func_attr({"global_symbol": "main", "tir.noalias": True})
        for i in T.grid(1024):
            with T.block("C"):
                vi = T.axis.remap("S", [i])
                C[vi] = A[vi] + B[vi]
'''

WINDOW_SUM = '''
@tvm.script.ir_module
class MyModuleWindowSum:
    @T.prim_func
    def main(A: T.Buffer((1027,), "float32"), B: T.Buffer((1024,), "float32")):
        T.func_attr({"global_symbol": "main", "tir.noalias": True})
        for i in T.grid(1024):
            with T.block("C"):
                vi = T.axis.remap("S", [i])
                B[vi] = A[vi] + A[vi + 1] + A[vi + 2]
'''

MATMUL = '''
@tvm.script.ir_module
class MyModuleMatmul:
    @T.prim_func
    def main(A: T.Buffer((256, 256), "float32"), B: T.Buffer((256, 256), "float32"),
             C: T.Buffer((256, 256), "float32")):
        T.func_attr({"global_symbol": "main", "tir.noalias": True})
        for i, j, k in T.grid(256, 256, 256):
            with T.block("C"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                with T.init():
                    C[vi, vj] = 0.0
                C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
'''

rng = np.random.default_rng(7)


def vector_add():
    sch = mlcc.Schedule(mlcc.parse(VECTOR_ADD))
    (i,) = sch.get_loops(sch.get_block("C"))
    i0, i1 = sch.split(i, [None, 128])
    sch.bind(i0, "blockIdx.x")
    sch.bind(i1, "threadIdx.x")
    a, b = rng.random(1024, dtype=np.float32), rng.random(1024, dtype=np.float32)
    return sch, (a, b), a + b


def window_sum():
    sch = mlcc.Schedule(mlcc.parse(WINDOW_SUM))
    block_C = sch.get_block("C")
    (i,) = sch.get_loops(block_C)
    i0, i1 = sch.split(i, [None, 128])
    sch.bind(i0, "blockIdx.x")
    sch.bind(i1, "threadIdx.x")
    A_shared = sch.cache_read(block_C, read_buffer_index=0, storage_scope="shared")
    sch.compute_at(A_shared, i1)
    ax = sch.get_loops(A_shared)[-1]
    ax0, ax1 = sch.split(ax, [None, 128])
    sch.bind(ax1, "threadIdx.x")
    a = rng.random(1027, dtype=np.float32)
    return sch, (a,), a[:-3] + a[1:-2] + a[2:-1]


def blocking_with_shared(sch, tile_local_y, tile_local_x, tile_block_y, tile_block_x, tile_k):
    block_C = sch.get_block("C")
    C_local = sch.cache_write(block_C, 0, "local")
    i, j, k = sch.get_loops(block=block_C)
    i0, i1, i2 = sch.split(loop=i, factors=[None, tile_block_y, tile_local_y])
    j0, j1, j2 = sch.split(loop=j, factors=[None, tile_block_x, tile_local_x])
    k0, k1 = sch.split(loop=k, factors=[None, tile_k])
    sch.reorder(i0, j0, i1, j1, k0, k1, i2, j2)
    sch.reverse_compute_at(C_local, j1)
    sch.bind(i0, "blockIdx.y")
    sch.bind(j0, "blockIdx.x")
    tx = sch.fuse(i1, j1)
    sch.bind(tx, "threadIdx.x")
    nthread = tile_block_y * tile_block_x

    def cache_read_and_coop_fetch(sch, block, nthread, read_idx, read_loc):
        read_cache = sch.cache_read(block=block, read_buffer_index=read_idx, storage_scope="shared")
        sch.compute_at(block=read_cache, loop=read_loc)
        inner0, inner1 = sch.get_loops(block=read_cache)[-2:]
        inner = sch.fuse(inner0, inner1)
        _, tx, vec = sch.split(loop=inner, factors=[None, nthread, 4])
        sch.vectorize(vec)
        sch.bind(tx, "threadIdx.x")

    cache_read_and_coop_fetch(sch, block_C, nthread, 0, k0)
    cache_read_and_coop_fetch(sch, block_C, nthread, 1, k0)
    sch.decompose_reduction(block_C, k0)
    return sch


def matmul():
    sch = blocking_with_shared(mlcc.Schedule(mlcc.parse(MATMUL)), 4, 4, 8, 8, 8)
    a = rng.standard_normal((256, 256)).astype("float32")
    b = rng.standard_normal((256, 256)).astype("float32")
    return sch, (a, b), a @ b


CASES = {"vector_add": vector_add, "window_sum": window_sum, "matmul": matmul}


@pytest.fixture(scope="module")
def opencl():
    reason = mlcc.gpu_unavailable("opencl")
    if reason:
        pytest.skip("no OpenCL device: %s" % reason)


@pytest.mark.parametrize("case", sorted(CASES))
def test_opencl_matches_numpy(opencl, case, tmp_path):
    sch, args, want = CASES[case]()
    so = str(tmp_path / "k.so")
    f = mlcc.build(sch.mod, target="opencl", out=so)["main"]
    source = open(str(tmp_path / "k.cl")).read()
    assert "__kernel" in source
    if case != "vector_add":
        assert "__local" in source and "barrier(" in source
    got = f(*args)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)
    # a second call reuses the built program and gives the same numbers
    np.testing.assert_array_equal(f(*args), got)


def test_opencl_model_matches_numpy(opencl):
    mod = mlcc.parse('''
from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((16, 32), "float32"), w: R.Tensor((32, 64), "float32"),
             b: R.Tensor((64,), "float32")) -> R.Tensor((16, 64), "float32"):
        with R.dataflow():
            lv0 = R.matmul(x, w)
            lv1 = R.add(lv0, b)
            out = R.nn.relu(lv1)
            R.output(out)
        return out
''')
    lib = mlcc.build(mod, target="opencl")
    x, w, b = (rng.standard_normal(s).astype("float32") for s in ((16, 32), (32, 64), (64,)))
    np.testing.assert_allclose(lib["main"](x, w, b), np.maximum(x @ w + b, 0), rtol=1e-4, atol=1e-4)


def nvcc():
    found = os.environ.get("NVCC") or shutil.which("nvcc")
    if not found and os.access("/usr/local/cuda/bin/nvcc", os.X_OK):
        found = "/usr/local/cuda/bin/nvcc"
    return found


@pytest.mark.parametrize("case", sorted(CASES))
def test_cuda(case, tmp_path):
    sch, args, want = CASES[case]()
    so = str(tmp_path / "k.so")
    lib = mlcc.build(sch.mod, target="cuda", out=so)
    cu = str(tmp_path / "k.cu")
    assert "__global__" in open(cu).read()
    compiler = nvcc()
    if compiler:
        env = dict(os.environ)
        env.pop("LD_PRELOAD", None)  # the sanitizers' runtimes, preloaded for the library under SAN=1
        r = subprocess.run([compiler, "--ptx", cu, "-o", str(tmp_path / "k.ptx")], capture_output=True, text=True,
                           env=env)
        assert r.returncode == 0, r.stderr
    reason = mlcc.gpu_unavailable("cuda")
    if reason:
        # built, not run: the call says why instead of crashing
        with pytest.raises(mlcc.BuildError, match="CUDA"):
            lib["main"](*args)
        pytest.skip("built%s; not run: %s" % (" and compiled with nvcc" if compiler else "", reason))
    np.testing.assert_allclose(lib["main"](*args), want, rtol=1e-4, atol=1e-4)


def test_unbound_loop_is_refused_for_a_gpu():
    with pytest.raises(mlcc.BuildError, match="not bound to a thread axis"):
        mlcc.build(mlcc.parse(VECTOR_ADD), target="opencl")
