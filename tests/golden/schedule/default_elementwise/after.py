from tvm.script import ir as I
from tvm.script import tir as T
from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func
    def ew(A: T.Buffer((64, 48), "float32"), B: T.Buffer((64, 48), "float32"), C: T.Buffer((64, 48), "float32")):
        T.func_attr({"global_symbol": "ew", "tir.noalias": T.bool(True)})
        for i, j_0 in T.grid(64, 6):
            for j_1 in T.vectorized(8):
                with T.block("C"):
                    vi = T.axis.spatial(64, i)
                    vj = T.axis.spatial(48, j_0 * 8 + j_1)
                    T.reads(A[vi, vj], B[vi, vj])
                    T.writes(C[vi, vj])
                    C[vi, vj] = T.max(A[vi, vj] * B[vi, vj] + T.float32(1.0), T.float32(0.0))
