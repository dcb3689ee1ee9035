# Expected: C under i_1, over the 5 produced columns and a unit loop for the row.
from tvm.script import ir as I
from tvm.script import tir as T
from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func
    def transpose(A: T.Buffer((64, 30), "float32"), C: T.Buffer((30, 64), "float32")):
        T.func_attr({"global_symbol": "transpose", "tir.noalias": T.bool(True)})
        B = T.alloc_buffer((64, 30))
        for i_0, j_0, i_1 in T.grid(8, 6, 8):
            for j_1 in range(5):
                with T.block("B"):
                    vi = T.axis.spatial(64, i_0 * 8 + i_1)
                    vj = T.axis.spatial(30, j_0 * 5 + j_1)
                    T.reads(A[vi, vj])
                    T.writes(B[vi, vj])
                    B[vi, vj] = A[vi, vj] - T.float32(3.0)
            for ax0, ax1 in T.grid(5, 1):
                with T.block("C"):
                    vi = T.axis.spatial(30, j_0 * 5 + ax0)
                    vj = T.axis.spatial(64, i_0 * 8 + i_1 + ax1)
                    T.reads(B[vj, vi])
                    T.writes(C[vi, vj])
                    C[vi, vj] = B[vj, vi] * T.float32(0.25)
