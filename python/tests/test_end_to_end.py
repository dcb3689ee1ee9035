"""The end-to-end chapter: a two-layer MLP as a graph function calling
tensor programs (call_tir) and library functions (call_dps_packed), one of
them registered from Python; built, run on numpy arrays and compared with
numpy.  Also the same model assembled with the BlockBuilder."""
import numpy as np
import pytest

import mlcc
from mlcc import te

MLP = '''
@tvm.script.ir_module
class MyModule:
    @T.prim_func
    def relu0(x: T.Buffer((1, 128), "float32"), out: T.Buffer((1, 128), "float32")):
        T.func_attr({"global_symbol": "relu0", "tir.noalias": True})
        for i, j in T.grid(1, 128):
            with T.block("compute"):
                vi, vj = T.axis.remap("SS", [i, j])
                out[vi, vj] = T.max(x[vi, vj], T.float32(0))

    @T.prim_func
    def linear0(X: T.Buffer((1, 784), "float32"), W: T.Buffer((128, 784), "float32"),
                B: T.Buffer((128,), "float32"), Z: T.Buffer((1, 128), "float32")):
        T.func_attr({"global_symbol": "linear0", "tir.noalias": True})
        Y = T.alloc_buffer((1, 128), "float32")
        for i, j, k in T.grid(1, 128, 784):
            with T.block("Y"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                with T.init():
                    Y[vi, vj] = T.float32(0)
                Y[vi, vj] = Y[vi, vj] + X[vi, vk] * W[vj, vk]
        for i, j in T.grid(1, 128):
            with T.block("Z"):
                vi, vj = T.axis.remap("SS", [i, j])
                Z[vi, vj] = Y[vi, vj] + B[vj]

    @R.function
    def main(x: R.Tensor((1, 784), "float32"), w0: R.Tensor((128, 784), "float32"),
             b0: R.Tensor((128,), "float32"), w1: R.Tensor((10, 128), "float32"),
             b1: R.Tensor((10,), "float32")):
        cls = MyModule
        with R.dataflow():
            lv0 = R.call_tir(cls.linear0, (x, w0, b0), out_sinfo=R.Tensor((1, 128), dtype="float32"))
            lv1 = R.call_tir(cls.relu0, (lv0,), out_sinfo=R.Tensor((1, 128), dtype="float32"))
            out = R.call_dps_packed("env.linear", (lv1, w1, b1), out_sinfo=R.Tensor((1, 10), dtype="float32"))
            R.output(out)
        return out
'''

rng = np.random.default_rng(2)
W0 = rng.standard_normal((128, 784)).astype("float32") * 0.05
B0 = rng.standard_normal((128,)).astype("float32")
W1 = rng.standard_normal((10, 128)).astype("float32") * 0.1
B1 = rng.standard_normal((10,)).astype("float32")
X = rng.standard_normal((1, 784)).astype("float32")


def mlp_ref(x):
    return np.maximum(x @ W0.T + B0, 0) @ W1.T + B1


def test_mlp_call_tir_and_library():
    mod = mlcc.parse(MLP)
    assert set(mod.func_names()) == {"relu0", "linear0", "main"}
    ex = mlcc.build(mod, target="llvm")
    out = ex["main"](X, W0, B0, W1, B1)
    np.testing.assert_allclose(out, mlp_ref(X), rtol=1e-4, atol=1e-4)


def test_library_function_registered_from_python():
    calls = []

    @mlcc.register_func("test.my_linear")
    def my_linear(x, w, b, out):
        calls.append(x.shape)
        out[...] = x @ w.T + b

    mod = mlcc.parse(MLP.replace('"env.linear"', '"test.my_linear"'))
    ex = mlcc.build(mod)
    out = ex["main"](X, W0, B0, W1, B1)
    np.testing.assert_allclose(out, mlp_ref(X), rtol=1e-4, atol=1e-4)
    assert calls == [(1, 128)]


def test_failing_python_library_function_is_an_error():
    @mlcc.register_func("test.broken")
    def broken(x, w, b, out):
        raise ValueError("no luck")

    ex = mlcc.build(mlcc.parse(MLP.replace('"env.linear"', '"test.broken"')))
    with pytest.raises(mlcc.BuildError, match="no luck"):
        ex["main"](X, W0, B0, W1, B1)


def te_linear(X, W, B):
    k = te.reduce_axis((0, X.shape[1]), name="k")
    Y = te.compute((X.shape[0], W.shape[0]), lambda i, j: te.sum(X[i, k] * W[j, k], axis=k), name="Y")
    return te.compute(Y.shape, lambda i, j: Y[i, j] + B[j], name="Z")


def te_relu(A):
    return te.compute(A.shape, lambda i, j: te.max(A[i, j], 0.0), name="relu")


def test_block_builder_mlp_with_weights_bound():
    x = mlcc.Var("x", mlcc.TensorStructInfo((1, 784), "float32"))
    bb = mlcc.BlockBuilder()
    with bb.function("main", [x]):
        with bb.dataflow():
            lv0 = bb.emit_te(te_linear, x, mlcc.const(W0), mlcc.const(B0))
            lv1 = bb.emit(mlcc.op.nn.relu(lv0))
            lv2 = bb.emit(mlcc.op.matmul(lv1, mlcc.op.permute_dims(mlcc.const(W1))))
            gv = bb.emit_output(mlcc.op.add(lv2, mlcc.const(B1)))
        bb.emit_func_output(gv)
    mod = bb.get()
    assert mod.graph_func_names() == ["main"]
    text = mod.script()
    assert "R.call_tir(cls.te_linear" in text and "R.nn.relu" in text
    out = mlcc.build(mod)["main"](X)
    np.testing.assert_allclose(out, mlp_ref(X), rtol=1e-4, atol=1e-4)


def test_block_builder_params_at_output_and_symbolic_batch():
    n = te.var("n")
    x = mlcc.Var("x", mlcc.TensorStructInfo((n, 784), "float32"))
    bb = mlcc.BlockBuilder()
    with bb.function("main"):
        with bb.dataflow():
            lv0 = bb.emit_te(te_linear, x, mlcc.const(W0), mlcc.const(B0))
            gv = bb.emit_output(bb.emit_te(te_relu, lv0))
        bb.emit_func_output(gv, params=[x])
    ex = mlcc.build(bb.get())
    xs = rng.standard_normal((3, 784)).astype("float32")
    np.testing.assert_allclose(ex["main"](xs), np.maximum(xs @ W0.T + B0, 0), rtol=1e-4, atol=1e-4)


def test_schedule_one_kernel_of_the_model():
    mod = mlcc.parse(MLP)
    sch = mlcc.Schedule(mod)
    with pytest.raises(mlcc.ScheduleError, match="work_on"):
        sch.get_block("Y")
    sch.work_on("linear0")
    i, j, k = sch.get_loops(sch.get_block("Y"))
    j0, j1 = sch.split(j, factors=[None, 8])
    sch.reorder(j0, k, j1)
    assert "sch.reorder(" in sch.trace
    sch2 = mlcc.Schedule(mod)
    sch2.get_block("Z", func_name="linear0")  # names its function, as the course does
    out = mlcc.build(sch.mod)["main"](X, W0, B0, W1, B1)
    np.testing.assert_allclose(out, mlp_ref(X), rtol=1e-4, atol=1e-4)
