# Fuzzer corpus: a chain of four elementwise blocks over 16x16 (scale, add,
# ReLU, add the input again).
from tvm.script import ir as I
from tvm.script import tir as T


@I.ir_module
class Module:
    @T.prim_func
    def elementwise(A: T.Buffer((16, 16), "float32"), D: T.Buffer((16, 16), "float32")):
        T.func_attr({"global_symbol": "elementwise", "tir.noalias": True})
        B = T.alloc_buffer((16, 16), "float32")
        C = T.alloc_buffer((16, 16), "float32")
        E = T.alloc_buffer((16, 16), "float32")
        for i, j in T.grid(16, 16):
            with T.block("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                B[vi, vj] = A[vi, vj] * T.float32(2)
        for i, j in T.grid(16, 16):
            with T.block("C"):
                vi, vj = T.axis.remap("SS", [i, j])
                C[vi, vj] = B[vi, vj] + T.float32(1)
        for i, j in T.grid(16, 16):
            with T.block("E"):
                vi, vj = T.axis.remap("SS", [i, j])
                E[vi, vj] = T.max(C[vi, vj], T.float32(0))
        for i, j in T.grid(16, 16):
            with T.block("D"):
                vi, vj = T.axis.remap("SS", [i, j])
                D[vi, vj] = E[vi, vj] + A[vi, vj]
