from tvm.script import ir as I
from tvm.script import tir as T

@I.ir_module
class Module:
    @T.prim_func
    def tiles(A: T.Buffer((64, 64), "float32"), C: T.Buffer((64, 64), "float32")):
        T.func_attr({"global_symbol": "tiles", "tir.noalias": T.bool(True)})
        B = T.alloc_buffer((64, 64))
        B_shared = T.alloc_buffer((64, 64), scope="shared")
        for io in range(8):
            for ii, j in T.grid(8, 64):
                with T.block("B"):
                    vi = T.axis.spatial(64, io * 8 + ii)
                    vj = T.axis.spatial(64, (j + 8) % 64)
                    T.reads(A[vi, vj])
                    T.writes(B[vi, vj])
                    B[vi, vj] = A[vi, vj] * T.float32(2.0)
            for ax0, ax1 in T.grid(8, 64):
                with T.block("B_shared"):
                    v0 = T.axis.spatial(64, io * 8 + ax0)
                    v1 = T.axis.spatial(64, ax1)
                    T.reads(B[v0, v1])
                    T.writes(B_shared[v0, v1])
                    B_shared[v0, v1] = B[v0, v1]
            for ii, j in T.grid(8, 64):
                with T.block("C"):
                    vi = T.axis.spatial(64, io * 8 + ii)
                    vj = T.axis.spatial(64, j)
                    T.reads(B_shared[vi, vj])
                    T.writes(C[vi, vj])
                    C[vi, vj] = B_shared[vi, vj] + T.float32(1.0)
