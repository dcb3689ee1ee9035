from tvm.script import ir as I
from tvm.script import tir as T

@I.ir_module
class Module:
    @T.prim_func
    def nested(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16, 16), "float32")):
        T.func_attr({"global_symbol": "nested", "tir.noalias": T.bool(True)})
        for i in range(16):
            with T.block("outer"):
                vi = T.axis.spatial(16, i)
                T.reads(A[vi, 0:16])
                T.writes(B[vi, 0:16])
                for j in range(16):
                    with T.block("inner"):
                        vj = T.axis.spatial(16, j)
                        T.reads(A[vi, vj])
                        T.writes(B[vi, vj])
                        B[vi, vj] = A[vi, vj] * T.float32(2.0)
