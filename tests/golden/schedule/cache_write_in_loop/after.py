from tvm.script import ir as I
from tvm.script import tir as T

@I.ir_module
class Module:
    @T.prim_func
    def rows(A: T.Buffer((64, 64), "float32"), C: T.Buffer((64, 64), "float32")):
        T.func_attr({"global_symbol": "rows", "tir.noalias": T.bool(True)})
        B = T.alloc_buffer((64, 64))
        B_shared = T.alloc_buffer((64, 64), scope="shared")
        for i in range(64):
            for j in range(64):
                with T.block("B"):
                    vi, vj = T.axis.remap("SS", [i, j])
                    T.reads(A[vi, vj])
                    T.writes(B_shared[vi, vj])
                    B_shared[vi, vj] = A[vi, vj] * T.float32(2.0)
            for ax0, ax1 in T.grid(1, 64):
                with T.block("B_shared"):
                    v0 = T.axis.spatial(64, i + ax0)
                    v1 = T.axis.spatial(64, ax1)
                    T.reads(B_shared[v0, v1])
                    T.writes(B[v0, v1])
                    B[v0, v1] = B_shared[v0, v1]
            for j in range(64):
                with T.block("C"):
                    vi, vj = T.axis.remap("SS", [i, j])
                    T.reads(B[vi, vj])
                    T.writes(C[vi, vj])
                    C[vi, vj] = B[vi, vj] + T.float32(1.0)
