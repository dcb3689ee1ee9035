# A batched matrix multiply followed by ReLU, small enough for the
# interpreter: 4 batches of (12 x 16) @ (16 x 10).
from tvm.script import ir as I
from tvm.script import tir as T


@I.ir_module
class Module:
    @T.prim_func
    def bmm_relu_small(A: T.Buffer((4, 12, 16), "float32"), B: T.Buffer((4, 16, 10), "float32"),
                       C: T.Buffer((4, 12, 10), "float32")):
        T.func_attr({"global_symbol": "bmm_relu_small", "tir.noalias": True})
        Y = T.alloc_buffer((4, 12, 10), "float32")
        for b, i, j, k in T.grid(4, 12, 10, 16):
            with T.block("Y"):
                vb, vi, vj, vk = T.axis.remap("SSSR", [b, i, j, k])
                with T.init():
                    Y[vb, vi, vj] = T.float32(0)
                Y[vb, vi, vj] = Y[vb, vi, vj] + A[vb, vi, vk] * B[vb, vk, vj]
        for b, i, j in T.grid(4, 12, 10):
            with T.block("C"):
                vb, vi, vj = T.axis.remap("SSS", [b, i, j])
                C[vb, vi, vj] = T.max(Y[vb, vi, vj], T.float32(0))
