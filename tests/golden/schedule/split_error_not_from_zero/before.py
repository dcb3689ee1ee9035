from tvm.script import ir as I
from tvm.script import tir as T

@I.ir_module
class Module:
    @T.prim_func
    def shifted(A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "float32")):
        T.func_attr({"global_symbol": "shifted", "tir.noalias": T.bool(True)})
        for i in T.serial(1, 63):
            with T.block("B"):
                vi = T.axis.spatial((1, 63), i)
                T.reads(A[vi - 1:vi - 1 + 3])
                T.writes(B[vi])
                B[vi] = (A[vi - 1] + A[vi] + A[vi + 1]) / T.float32(3.0)
