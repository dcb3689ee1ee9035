# The softmax of softmax_cross_thread without a schedule: the default GPU
# schedule makes its two reductions over 1024 columns cross-thread
# reductions, one block per row.
from tvm.script import ir as I
from tvm.script import tir as T


@I.ir_module
class Module:
    @T.prim_func
    def softmax(A: T.Buffer((64, 256), "float32"), B: T.Buffer((64, 256), "float32")):
        T.func_attr({"global_symbol": "softmax", "tir.noalias": True})
        M = T.alloc_buffer((64,), "float32")
        E = T.alloc_buffer((64, 256), "float32")
        S = T.alloc_buffer((64,), "float32")
        for i, k in T.grid(64, 256):
            with T.block("maxelem"):
                vi, vk = T.axis.remap("SR", [i, k])
                with T.init():
                    M[vi] = T.float32(-3.4028234663852886e38)
                M[vi] = T.max(M[vi], A[vi, vk])
        for i, k in T.grid(64, 256):
            with T.block("exp"):
                vi, vk = T.axis.remap("SS", [i, k])
                E[vi, vk] = T.exp(A[vi, vk] - M[vi])
        for i, k in T.grid(64, 256):
            with T.block("expsum"):
                vi, vk = T.axis.remap("SR", [i, k])
                with T.init():
                    S[vi] = T.float32(0)
                S[vi] = S[vi] + E[vi, vk]
        for i, k in T.grid(64, 256):
            with T.block("norm"):
                vi, vk = T.axis.remap("SS", [i, k])
                B[vi, vk] = E[vi, vk] / S[vi]
