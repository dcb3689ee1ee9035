from tvm.script import ir as I
from tvm.script import tir as T
from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func
    def transpose(A: T.Buffer((64, 72), "float32"), B: T.Buffer((72, 64), "float32")):
        T.func_attr({"global_symbol": "transpose", "tir.noalias": T.bool(True)})
        for i in T.parallel(64):
            for j in range(72):
                with T.block("B"):
                    vi, vj = T.axis.remap("SS", [i, j])
                    T.reads(A[vi, vj])
                    T.writes(B[vj, vi])
                    B[vj, vi] = A[vi, vj]
