# The MLP with a symbolic batch size n: the tensor programs take T.handle
# params bound by T.match_buffer to shapes that use n, and the graph names the
# batch "n" in its signature.  Index arithmetic is int64 throughout, as it is
# in programs produced from graph-level ops.
from tvm.script import ir as I
from tvm.script import tir as T
from tvm.script import relax as R


@I.ir_module
class Module:
    @T.prim_func
    def linear0(x: T.handle, w: T.Buffer((T.int64(128), T.int64(784)), "float32"),
                b: T.Buffer((T.int64(128),), "float32"), z: T.handle):
        T.func_attr({"global_symbol": "linear0", "tir.noalias": True})
        n = T.int64()
        X = T.match_buffer(x, (n, T.int64(784)))
        Z = T.match_buffer(z, (n, T.int64(128)))
        Y = T.alloc_buffer((n, T.int64(128)))
        for i, j, k in T.grid(n, T.int64(128), T.int64(784)):
            with T.block("Y"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                with T.init():
                    Y[vi, vj] = T.float32(0)
                Y[vi, vj] = Y[vi, vj] + X[vi, vk] * w[vj, vk]
        for i, j in T.grid(n, T.int64(128)):
            with T.block("Z"):
                vi, vj = T.axis.remap("SS", [i, j])
                Z[vi, vj] = Y[vi, vj] + b[vj]

    @T.prim_func
    def relu0(x: T.handle, y: T.handle):
        T.func_attr({"global_symbol": "relu0", "tir.noalias": True})
        n = T.int64()
        X = T.match_buffer(x, (n, T.int64(128)))
        Y = T.match_buffer(y, (n, T.int64(128)))
        for i, j in T.grid(n, T.int64(128)):
            with T.block("Y"):
                vi, vj = T.axis.remap("SS", [i, j])
                Y[vi, vj] = T.max(X[vi, vj], T.float32(0))

    @T.prim_func
    def linear1(x: T.handle, w: T.Buffer((T.int64(10), T.int64(128)), "float32"),
                b: T.Buffer((T.int64(10),), "float32"), z: T.handle):
        T.func_attr({"global_symbol": "linear1", "tir.noalias": True})
        n = T.int64()
        X = T.match_buffer(x, (n, T.int64(128)))
        Z = T.match_buffer(z, (n, T.int64(10)))
        Y = T.alloc_buffer((n, T.int64(10)))
        for i, j, k in T.grid(n, T.int64(10), T.int64(128)):
            with T.block("Y"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                with T.init():
                    Y[vi, vj] = T.float32(0)
                Y[vi, vj] = Y[vi, vj] + X[vi, vk] * w[vj, vk]
        for i, j in T.grid(n, T.int64(10)):
            with T.block("Z"):
                vi, vj = T.axis.remap("SS", [i, j])
                Z[vi, vj] = Y[vi, vj] + b[vj]

    @R.function
    def main(x: R.Tensor(("n", 784), dtype="float32"), w0: R.Tensor((128, 784), dtype="float32"),
             b0: R.Tensor((128,), dtype="float32"), w1: R.Tensor((10, 128), dtype="float32"),
             b1: R.Tensor((10,), dtype="float32")) -> R.Tensor(("n", 10), dtype="float32"):
        n = T.int64()
        cls = Module
        with R.dataflow():
            lv0 = R.call_tir(cls.linear0, (x, w0, b0), out_sinfo=R.Tensor((n, 128), dtype="float32"))
            lv1 = R.call_tir(cls.relu0, (lv0,), out_sinfo=R.Tensor((n, 128), dtype="float32"))
            out = R.call_tir(cls.linear1, (lv1, w1, b1), out_sinfo=R.Tensor((n, 10), dtype="float32"))
            R.output(out)
        return out
