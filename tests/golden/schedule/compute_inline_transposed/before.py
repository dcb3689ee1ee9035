# An elementwise chain B = A * 2, C = B + 1 where C reads B twice, once
# transposed and shifted: inlining B substitutes its expression into both reads.
from tvm.script import ir as I
from tvm.script import tir as T


@I.ir_module
class Module:
    @T.prim_func
    def chain(A: T.Buffer((64, 64), "float32"), C: T.Buffer((64, 63), "float32")):
        T.func_attr({"global_symbol": "chain", "tir.noalias": True})
        B = T.alloc_buffer((64, 64), "float32")
        for i, j in T.grid(64, 64):
            with T.block("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                B[vi, vj] = A[vi, vj] * T.float32(2)
        for i, j in T.grid(64, 63):
            with T.block("C"):
                vi, vj = T.axis.remap("SS", [i, j])
                C[vi, vj] = B[vj + 1, vi] + B[vi, vj] + T.float32(1)
