# C reads only A, a parameter: nothing under the loop of D produces its input.
from tvm.script import ir as I
from tvm.script import tir as T


@I.ir_module
class Module:
    @T.prim_func
    def two_producers(A: T.Buffer((64,), "float32"), C: T.Buffer((64,), "float32")):
        T.func_attr({"global_symbol": "two_producers", "tir.noalias": True})
        B = T.alloc_buffer((64,), "float32")
        D = T.alloc_buffer((64,), "float32")
        for i in range(64):
            with T.block("B"):
                vi = T.axis.spatial(64, i)
                B[vi] = A[vi] + T.float32(1)
        for i in range(64):
            with T.block("D"):
                vi = T.axis.spatial(64, i)
                D[vi] = A[vi] * T.float32(2)
        for i in range(64):
            with T.block("C"):
                vi = T.axis.spatial(64, i)
                C[vi] = A[vi] * T.float32(4)
