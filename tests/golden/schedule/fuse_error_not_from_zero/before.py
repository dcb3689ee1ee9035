from tvm.script import ir as I
from tvm.script import tir as T

@I.ir_module
class Module:
    @T.prim_func
    def shifted(A: T.Buffer((64, 8), "float32"), B: T.Buffer((64, 8), "float32")):
        T.func_attr({"global_symbol": "shifted", "tir.noalias": T.bool(True)})
        for i in T.serial(1, 63):
            for j in range(8):
                with T.block("B"):
                    vi = T.axis.spatial((1, 63), i)
                    vj = T.axis.spatial(8, j)
                    T.reads(A[vi, vj])
                    T.writes(B[vi, vj])
                    B[vi, vj] = A[vi, vj] + T.float32(1.0)
