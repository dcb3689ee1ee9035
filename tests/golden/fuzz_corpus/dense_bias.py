# Fuzzer corpus: a dense layer (8x12 times 12x16 transposed weights) with a
# bias add and a clip, the shape of an MLP layer.
from tvm.script import ir as I
from tvm.script import tir as T


@I.ir_module
class Module:
    @T.prim_func
    def dense_bias(X: T.Buffer((8, 12), "float32"), W: T.Buffer((16, 12), "float32"),
                   b: T.Buffer((16,), "float32"), Y: T.Buffer((8, 16), "float32")):
        T.func_attr({"global_symbol": "dense_bias", "tir.noalias": True})
        M = T.alloc_buffer((8, 16), "float32")
        Z = T.alloc_buffer((8, 16), "float32")
        for i, j, k in T.grid(8, 16, 12):
            with T.block("M"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                with T.init():
                    M[vi, vj] = T.float32(0)
                M[vi, vj] = M[vi, vj] + X[vi, vk] * W[vj, vk]
        for i, j in T.grid(8, 16):
            with T.block("Z"):
                vi, vj = T.axis.remap("SS", [i, j])
                Z[vi, vj] = M[vi, vj] + b[vj]
        for i, j in T.grid(8, 16):
            with T.block("Y"):
                vi, vj = T.axis.remap("SS", [i, j])
                Y[vi, vj] = T.min(T.max(Z[vi, vj], T.float32(0)), T.float32(6))
