from tvm.script import ir as I
from tvm.script import tir as T

@I.ir_module
class Module:
    @T.prim_func
    def opaque(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16, 16), "float32")):
        T.func_attr({"global_symbol": "opaque", "tir.noalias": T.bool(True)})
        for i, j in T.grid(16, 16):
            with T.block("B"):
                vi = T.axis.opaque(16, i)
                vj = T.axis.spatial(16, j)
                T.reads(A[vi, vj])
                T.writes(B[vi, vj])
                B[vi, vj] = A[vi, vj] + T.float32(1.0)
