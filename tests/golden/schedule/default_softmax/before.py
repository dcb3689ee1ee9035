# Default rules: row softmax over 32 x 64 (row max and sum reduce along the
# innermost axis: rfactor'd into lanes; exp and divide are injective).
from tvm.script import ir as I
from tvm.script import tir as T


@I.ir_module
class Module:
    @T.prim_func
    def softmax(A: T.Buffer((32, 64), "float32"), B: T.Buffer((32, 64), "float32")):
        T.func_attr({"global_symbol": "softmax", "tir.noalias": True})
        A_max = T.alloc_buffer((32,), "float32")
        A_exp = T.alloc_buffer((32, 64), "float32")
        A_sum = T.alloc_buffer((32,), "float32")
        for i, k in T.grid(32, 64):
            with T.block("max"):
                vi, vk = T.axis.remap("SR", [i, k])
                with T.init():
                    A_max[vi] = T.min_value("float32")
                A_max[vi] = T.max(A_max[vi], A[vi, vk])
        for i, j in T.grid(32, 64):
            with T.block("exp"):
                vi, vj = T.axis.remap("SS", [i, j])
                A_exp[vi, vj] = T.exp(A[vi, vj] - A_max[vi])
        for i, k in T.grid(32, 64):
            with T.block("sum"):
                vi, vk = T.axis.remap("SR", [i, k])
                with T.init():
                    A_sum[vi] = T.float32(0)
                A_sum[vi] = A_sum[vi] + A_exp[vi, vk]
        for i, j in T.grid(32, 64):
            with T.block("divide"):
                vi, vj = T.axis.remap("SS", [i, j])
                B[vi, vj] = A_exp[vi, vj] / A_sum[vi]
