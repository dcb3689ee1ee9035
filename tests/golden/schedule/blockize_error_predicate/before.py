from tvm.script import ir as I
from tvm.script import tir as T

@I.ir_module
class Module:
    @T.prim_func
    def add_one(A: T.Buffer((100,), "float32"), B: T.Buffer((100,), "float32")):
        for i in range(100):
            with T.block("B"):
                vi = T.axis.spatial(100, i)
                T.reads(A[vi])
                T.writes(B[vi])
                B[vi] = A[vi] + T.float32(1.0)
