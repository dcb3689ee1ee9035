# Expected: per 16-row tile of D: 17 rows of B, 16 rows of C, then D.
from tvm.script import ir as I
from tvm.script import tir as T
from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func
    def chain(A: T.Buffer((65, 64), "float32"), D: T.Buffer((64, 64), "float32")):
        T.func_attr({"global_symbol": "chain", "tir.noalias": T.bool(True)})
        B = T.alloc_buffer((65, 64))
        C = T.alloc_buffer((64, 64))
        for i_0 in range(4):
            for ax0_1, ax1_1 in T.grid(17, 64):
                with T.block("B"):
                    vi = T.axis.spatial(65, i_0 * 16 + ax0_1)
                    vj = T.axis.spatial(64, ax1_1)
                    T.reads(A[vi, vj])
                    T.writes(B[vi, vj])
                    B[vi, vj] = A[vi, vj] * T.float32(3.0)
            for ax0, ax1 in T.grid(16, 64):
                with T.block("C"):
                    vi = T.axis.spatial(64, i_0 * 16 + ax0)
                    vj = T.axis.spatial(64, ax1)
                    T.reads(B[vi:vi + 2, vj])
                    T.writes(C[vi, vj])
                    C[vi, vj] = B[vi, vj] + B[vi + 1, vj]
            for i_1, j in T.grid(16, 64):
                with T.block("D"):
                    vi = T.axis.spatial(64, i_0 * 16 + i_1)
                    vj = T.axis.spatial(64, j)
                    T.reads(C[vi, vj])
                    T.writes(D[vi, vj])
                    D[vi, vj] = C[vi, vj] - T.float32(1.0)
