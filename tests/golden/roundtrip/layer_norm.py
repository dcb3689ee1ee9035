# Layer normalization over the last axis of a 4x256 tensor: one reduction
# block computes the sum and the sum of squares together (two stores in the
# init and in the body), then the normalizing block uses 1/256 and eps=1e-5.
from tvm.script import ir as I
from tvm.script import tir as T


@I.ir_module
class Module:
    @T.prim_func
    def layer_norm(A: T.Buffer((4, 256), "float32"), gamma: T.Buffer((256,), "float32"),
                   beta: T.Buffer((256,), "float32"), B: T.Buffer((4, 256), "float32")):
        T.func_attr({"global_symbol": "layer_norm", "tir.noalias": True})
        A_sum = T.alloc_buffer((4,), "float32")
        A_sq_sum = T.alloc_buffer((4,), "float32")
        for i, k in T.grid(4, 256):
            with T.block("sums"):
                vi, vk = T.axis.remap("SR", [i, k])
                with T.init():
                    A_sum[vi] = T.float32(0)
                    A_sq_sum[vi] = T.float32(0)
                A_sum[vi] = A_sum[vi] + A[vi, vk]
                A_sq_sum[vi] = A_sq_sum[vi] + A[vi, vk] * A[vi, vk]
        for i, j in T.grid(4, 256):
            with T.block("norm"):
                vi, vj = T.axis.remap("SS", [i, j])
                B[vi, vj] = (A[vi, vj] - A_sum[vi] * T.float32(0.00390625)) * T.rsqrt(A_sq_sum[vi] * T.float32(0.00390625) - A_sum[vi] * T.float32(0.00390625) * (A_sum[vi] * T.float32(0.00390625)) + T.float32(1e-05)) * gamma[vj] + beta[vj]
