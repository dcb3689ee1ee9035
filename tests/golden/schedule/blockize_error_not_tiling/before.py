from tvm.script import ir as I
from tvm.script import tir as T

@I.ir_module
class Module:
    @T.prim_func
    def strided(A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "float32")):
        for i_0, i_1 in T.grid(4, 16):
            with T.block("B"):
                vi = T.axis.spatial(64, i_1 * 4 + i_0)
                T.reads(A[vi])
                T.writes(B[vi])
                B[vi] = A[vi] + T.float32(1.0)
