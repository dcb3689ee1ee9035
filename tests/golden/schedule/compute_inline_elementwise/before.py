# Batched matmul whose left operand is first scaled by an elementwise block:
# inlining the scale moves A[...] * 0.5 into the reduction's body.
from tvm.script import ir as I
from tvm.script import tir as T


@I.ir_module
class Module:
    @T.prim_func
    def scaled_bmm(A: T.Buffer((16, 128, 128), "float32"), B: T.Buffer((16, 128, 128), "float32"),
                   C: T.Buffer((16, 128, 128), "float32")):
        T.func_attr({"global_symbol": "scaled_bmm", "tir.noalias": True})
        S = T.alloc_buffer((16, 128, 128), "float32")
        for n, i, k in T.grid(16, 128, 128):
            with T.block("S"):
                vn, vi, vk = T.axis.remap("SSS", [n, i, k])
                S[vn, vi, vk] = A[vn, vi, vk] * T.float32(0.5)
        for n, i, j, k in T.grid(16, 128, 128, 128):
            with T.block("C"):
                vn, vi, vj, vk = T.axis.remap("SSSR", [n, i, j, k])
                with T.init():
                    C[vn, vi, vj] = T.float32(0)
                C[vn, vi, vj] = C[vn, vi, vj] + S[vn, vi, vk] * B[vn, vk, vj]
