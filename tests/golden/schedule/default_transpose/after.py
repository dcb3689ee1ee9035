from tvm.script import ir as I
from tvm.script import tir as T
from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func
    def transpose(A: T.Buffer((64, 72), "float32"), B: T.Buffer((72, 64), "float32")):
        T.func_attr({"global_symbol": "transpose", "tir.noalias": T.bool(True)})
        for i_j_fused in T.parallel(4608):
            with T.block("B"):
                vi = T.axis.spatial(64, i_j_fused // 72)
                vj = T.axis.spatial(72, i_j_fused % 72)
                T.reads(A[vi, vj])
                T.writes(B[vj, vi])
                B[vj, vi] = A[vi, vj]
