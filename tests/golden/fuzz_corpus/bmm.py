# Fuzzer corpus: 4 batches of 8x8x8 matmul plus a bias add.
from tvm.script import ir as I
from tvm.script import tir as T


@I.ir_module
class Module:
    @T.prim_func
    def bmm(A: T.Buffer((4, 8, 8), "float32"), B: T.Buffer((4, 8, 8), "float32"),
            bias: T.Buffer((8,), "float32"), C: T.Buffer((4, 8, 8), "float32")):
        T.func_attr({"global_symbol": "bmm", "tir.noalias": True})
        Y = T.alloc_buffer((4, 8, 8), "float32")
        for n, i, j, k in T.grid(4, 8, 8, 8):
            with T.block("Y"):
                vn, vi, vj, vk = T.axis.remap("SSSR", [n, i, j, k])
                with T.init():
                    Y[vn, vi, vj] = T.float32(0)
                Y[vn, vi, vj] = Y[vn, vi, vj] + A[vn, vi, vk] * B[vn, vk, vj]
        for n, i, j in T.grid(4, 8, 8):
            with T.block("C"):
                vn, vi, vj = T.axis.remap("SSS", [n, i, j])
                C[vn, vi, vj] = Y[vn, vi, vj] + bias[vj]
