from tvm.script import ir as I
from tvm.script import tir as T

@I.ir_module
class Module:
    @T.prim_func
    def tri(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16, 16), "float32")):
        T.func_attr({"global_symbol": "tri", "tir.noalias": T.bool(True)})
        for i in range(16):
            for j in range(i + 1):
                with T.block("B"):
                    vi = T.axis.spatial(16, i)
                    vj = T.axis.spatial(16, j)
                    T.reads(A[vi, vj])
                    T.writes(B[vi, vj])
                    B[vi, vj] = A[vi, vj]
