"""The tensor-program chapter: mm_relu written as TVMScript, transformed
step by step, built and compared with numpy; the bmm_relu exercise; the
same program from tensor expressions."""
import numpy as np
import pytest

import mlcc
from mlcc import te

MM_RELU = '''
@tvm.script.ir_module
class MyModule:
    @T.prim_func
    def mm_relu(A: T.Buffer((128, 128), "float32"),
                B: T.Buffer((128, 128), "float32"),
                C: T.Buffer((128, 128), "float32")):
        T.func_attr({"global_symbol": "mm_relu", "tir.noalias": True})
        Y = T.alloc_buffer((128, 128), dtype="float32")
        for i, j, k in T.grid(128, 128, 128):
            with T.block("Y"):
                vi = T.axis.spatial(128, i)
                vj = T.axis.spatial(128, j)
                vk = T.axis.reduce(128, k)
                with T.init():
                    Y[vi, vj] = T.float32(0)
                Y[vi, vj] = Y[vi, vj] + A[vi, vk] * B[vk, vj]
        for i, j in T.grid(128, 128):
            with T.block("C"):
                vi = T.axis.spatial(128, i)
                vj = T.axis.spatial(128, j)
                C[vi, vj] = T.max(Y[vi, vj], T.float32(0))
'''

rng = np.random.default_rng(0)


def mm_relu_ref(a, b):
    return np.maximum(a @ b, 0)


def inputs():
    return rng.standard_normal((128, 128)).astype("float32"), rng.standard_normal((128, 128)).astype("float32")


def test_parse_print_roundtrip():
    mod = mlcc.parse(MM_RELU)
    assert mod.func_names() == ["mm_relu"]
    again = mlcc.parse(mod.script())
    assert mlcc.structural_equal(mod, again)
    assert mlcc.structural_hash(mod) == mlcc.structural_hash(again)
    assert "def mm_relu(" in str(mod)


def test_transform_and_build():
    mod = mlcc.parse(MM_RELU)
    sch = mlcc.Schedule(mod)
    block_Y = sch.get_block("Y", func_name="mm_relu")
    i, j, k = sch.get_loops(block_Y)
    j0, j1 = sch.split(j, factors=[None, 4])
    sch.reorder(j0, k, j1)
    block_C = sch.get_block("C", "mm_relu")
    sch.reverse_compute_at(block_C, j0)
    sch.decompose_reduction(block_Y, k)
    assert not mlcc.structural_equal(mod, sch.mod)
    # the trace replays to the same module
    sch2 = mlcc.Schedule(mod)
    sch2.replay(sch.trace)
    assert mlcc.structural_equal(sch.mod, sch2.mod)
    a, b = inputs()
    for m in (mod, sch.mod):
        rt = mlcc.build(m, target="llvm")
        c = np.empty((128, 128), dtype="float32")
        rt["mm_relu"](a, b, c)
        np.testing.assert_allclose(c, mm_relu_ref(a, b), rtol=1e-4, atol=1e-4)
    t = rt["mm_relu"].time(a, b, c, number=2, repeat=2)
    assert t.mean > 0 and t.min <= t.mean


def test_refused_primitive_leaves_schedule_unchanged():
    mod = mlcc.parse(MM_RELU)
    sch = mlcc.Schedule(mod)
    b = sch.get_block("Y")
    i, j, k = sch.get_loops(b)
    before, trace = sch.mod, str(sch.trace)
    with pytest.raises(mlcc.ScheduleError, match="split"):
        sch.split(j, factors=[3, 5])
    with pytest.raises(mlcc.ScheduleError):
        sch.get_block("nope")
    assert mlcc.structural_equal(before, sch.mod)
    assert str(sch.trace) == trace
    # and it still works afterwards
    sch.split(j, factors=[None, 8])


def test_every_primitive_is_a_method():
    assert len(mlcc.PRIMITIVES) > 20
    for name in mlcc.PRIMITIVES:
        assert callable(getattr(mlcc.Schedule, name))
    assert {"split", "reorder", "compute_at", "cache_read", "sample_perfect_tile"} <= set(mlcc.PRIMITIVES)


BMM_RELU = '''
@tvm.script.ir_module
class MyBmmRelu:
    @T.prim_func
    def bmm_relu(A: T.Buffer((16, 128, 128), "float32"), B: T.Buffer((16, 128, 128), "float32"),
                 C: T.Buffer((16, 128, 128), "float32")):
        T.func_attr({"global_symbol": "bmm_relu", "tir.noalias": True})
        Y = T.alloc_buffer((16, 128, 128), dtype="float32")
        for n, i, j, k in T.grid(16, 128, 128, 128):
            with T.block("Y"):
                vn, vi, vj, vk = T.axis.remap("SSSR", [n, i, j, k])
                with T.init():
                    Y[vn, vi, vj] = T.float32(0)
                Y[vn, vi, vj] = Y[vn, vi, vj] + A[vn, vi, vk] * B[vn, vk, vj]
        for n, i, j in T.grid(16, 128, 128):
            with T.block("C"):
                vn, vi, vj = T.axis.remap("SSS", [n, i, j])
                C[vn, vi, vj] = T.max(Y[vn, vi, vj], T.float32(0))
'''


def test_bmm_relu_exercise():
    mod = mlcc.parse(BMM_RELU)
    sch = mlcc.Schedule(mod)
    block_Y = sch.get_block("Y", "bmm_relu")
    n, i, j, k = sch.get_loops(block_Y)
    sch.parallel(n)
    j0, j1 = sch.split(j, factors=[None, 8])
    k0, k1 = sch.split(k, factors=[None, 4])
    sch.reorder(j0, k0, k1, j1)
    block_C = sch.get_block("C", "bmm_relu")
    sch.reverse_compute_at(block_C, j0)
    ax = sch.get_loops(block_C)[-1]
    sch.vectorize(ax)
    y_init = sch.decompose_reduction(block_Y, k0)
    sch.vectorize(sch.get_loops(y_init)[-1])
    sch.unroll(k1)
    rng2 = np.random.default_rng(1)
    a = rng2.standard_normal((16, 128, 128)).astype("float32")
    b = rng2.standard_normal((16, 128, 128)).astype("float32")
    rt = mlcc.build(sch.mod)
    c = rt.bmm_relu(a, b)
    np.testing.assert_allclose(c, np.maximum(np.einsum("nik,nkj->nij", a, b), 0), rtol=1e-4, atol=1e-4)


def test_te_mm_relu_equals_script():
    A = te.placeholder((128, 128), "float32", name="A")
    B = te.placeholder((128, 128), "float32", name="B")
    k = te.reduce_axis((0, 128), name="k")
    Y = te.compute((128, 128), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="Y")
    C = te.compute((128, 128), lambda i, j: te.max(Y[i, j], 0.0), name="C")
    mod = mlcc.IRModule({"mm_relu": te.create_prim_func([A, B, C])})
    assert mod.func_names() == ["mm_relu"]
    named = te.create_prim_func([A, B, C]).with_attr({"global_symbol": "mm_relu"})
    assert mlcc.structural_equal(named.mod, mod)
    with pytest.raises(mlcc.Error, match="global_symbol"):
        named.with_attr("tir.noalias", True)
    a, b = inputs()
    out = mlcc.build(mod)["mm_relu"](a, b)
    np.testing.assert_allclose(out, mm_relu_ref(a, b), rtol=1e-4, atol=1e-4)
