# Fuzzer corpus: layer normalization over the last axis of 8x16 (the mean
# and the mean of squares as separate reductions, then the normalization).
from tvm.script import ir as I
from tvm.script import tir as T


@I.ir_module
class Module:
    @T.prim_func
    def layer_norm(A: T.Buffer((8, 16), "float32"), gamma: T.Buffer((16,), "float32"),
                   beta: T.Buffer((16,), "float32"), B: T.Buffer((8, 16), "float32")):
        T.func_attr({"global_symbol": "layer_norm", "tir.noalias": True})
        A_sum = T.alloc_buffer((8,), "float32")
        A_sq_sum = T.alloc_buffer((8,), "float32")
        for i, k in T.grid(8, 16):
            with T.block("sum"):
                vi, vk = T.axis.remap("SR", [i, k])
                with T.init():
                    A_sum[vi] = T.float32(0)
                A_sum[vi] = A_sum[vi] + A[vi, vk]
        for i, k in T.grid(8, 16):
            with T.block("sq_sum"):
                vi, vk = T.axis.remap("SR", [i, k])
                with T.init():
                    A_sq_sum[vi] = T.float32(0)
                A_sq_sum[vi] = A_sq_sum[vi] + A[vi, vk] * A[vi, vk]
        for i, j in T.grid(8, 16):
            with T.block("norm"):
                vi, vj = T.axis.remap("SS", [i, j])
                B[vi, vj] = (A[vi, vj] - A_sum[vi] * T.float32(0.0625)) * T.rsqrt(A_sq_sum[vi] * T.float32(0.0625) - A_sum[vi] * T.float32(0.0625) * (A_sum[vi] * T.float32(0.0625)) + T.float32(1e-05)) * gamma[vj] + beta[vj]
