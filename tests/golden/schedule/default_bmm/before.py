# Default rules: a batched matmul 3 x 24 x 32 x 16.
from tvm.script import ir as I
from tvm.script import tir as T


@I.ir_module
class Module:
    @T.prim_func
    def bmm(A: T.Buffer((3, 24, 16), "float32"), B: T.Buffer((3, 16, 32), "float32"), C: T.Buffer((3, 24, 32), "float32")):
        T.func_attr({"global_symbol": "bmm", "tir.noalias": True})
        for b, i, j, k in T.grid(3, 24, 32, 16):
            with T.block("C"):
                vb, vi, vj, vk = T.axis.remap("SSSR", [b, i, j, k])
                with T.init():
                    C[vb, vi, vj] = T.float32(0)
                C[vb, vi, vj] = C[vb, vi, vj] + A[vb, vi, vk] * B[vb, vk, vj]
