# Row softmax over a 4x256 tensor in four blocks: the row max (reduction
# started at the lowest float32), exp of the shifted values, the row sum, and
# the division.
from tvm.script import ir as I
from tvm.script import tir as T


@I.ir_module
class Module:
    @T.prim_func
    def softmax(A: T.Buffer((4, 256), "float32"), B: T.Buffer((4, 256), "float32")):
        T.func_attr({"global_symbol": "softmax", "tir.noalias": True})
        A_max = T.alloc_buffer((4,), "float32")
        A_exp = T.alloc_buffer((4, 256), "float32")
        A_sum = T.alloc_buffer((4,), "float32")
        for i, k in T.grid(4, 256):
            with T.block("max"):
                vi, vk = T.axis.remap("SR", [i, k])
                with T.init():
                    A_max[vi] = T.float32(-3.4028234663852886e+38)
                A_max[vi] = T.max(A_max[vi], A[vi, vk])
        for i, j in T.grid(4, 256):
            with T.block("exp"):
                vi, vj = T.axis.remap("SS", [i, j])
                A_exp[vi, vj] = T.exp(A[vi, vj] - A_max[vi])
        for i, k in T.grid(4, 256):
            with T.block("sum"):
                vi, vk = T.axis.remap("SR", [i, k])
                with T.init():
                    A_sum[vi] = T.float32(0)
                A_sum[vi] = A_sum[vi] + A_exp[vi, vk]
        for i, j in T.grid(4, 256):
            with T.block("divide"):
                vi, vj = T.axis.remap("SS", [i, j])
                B[vi, vj] = A_exp[vi, vj] / A_sum[vi]
