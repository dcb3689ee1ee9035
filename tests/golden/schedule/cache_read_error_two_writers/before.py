# Two blocks write the halves of B.
from tvm.script import ir as I
from tvm.script import tir as T


@I.ir_module
class Module:
    @T.prim_func
    def two_writers(A: T.Buffer((128,), "float32"), C: T.Buffer((128,), "float32")):
        T.func_attr({"global_symbol": "two_writers", "tir.noalias": True})
        B = T.alloc_buffer((128,))
        for i in range(64):
            with T.block("B0"):
                vi = T.axis.spatial(64, i)
                B[vi] = A[vi]
        for i in range(64):
            with T.block("B1"):
                vi = T.axis.spatial(64, i)
                B[vi + 64] = A[vi + 64] * T.float32(2)
        for i in range(128):
            with T.block("C"):
                vi = T.axis.spatial(128, i)
                C[vi] = B[vi] + T.float32(1)
