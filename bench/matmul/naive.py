# Naive 1024x1024x1024 float32 matmul, C = A @ B: one block with an init,
# loops i, j, k in their natural order.  The baseline the tiled program and
# OpenBLAS are compared with in bench/matmul/bench.c.
from tvm.script import ir as I
from tvm.script import tir as T


@I.ir_module
class Module:
    @T.prim_func
    def matmul(A: T.Buffer((1024, 1024), "float32"),
               B: T.Buffer((1024, 1024), "float32"),
               C: T.Buffer((1024, 1024), "float32")):
        T.func_attr({"global_symbol": "matmul", "tir.noalias": True})
        for i, j, k in T.grid(1024, 1024, 1024):
            with T.block("C"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                with T.init():
                    C[vi, vj] = T.float32(0)
                C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
