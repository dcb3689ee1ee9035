# Eight-row tiles: each tile of B is produced and consumed inside one
# iteration of io; B's columns are written rotated by 8.
from tvm.script import ir as I
from tvm.script import tir as T


@I.ir_module
class Module:
    @T.prim_func
    def tiles(A: T.Buffer((64, 64), "float32"), C: T.Buffer((64, 64), "float32")):
        T.func_attr({"global_symbol": "tiles", "tir.noalias": True})
        B = T.alloc_buffer((64, 64))
        for io in range(8):
            for ii, j in T.grid(8, 64):
                with T.block("B"):
                    vi = T.axis.spatial(64, io * 8 + ii)
                    vj = T.axis.spatial(64, (j + 8) % 64)
                    B[vi, vj] = A[vi, vj] * T.float32(2)
            for ii, j in T.grid(8, 64):
                with T.block("C"):
                    vi = T.axis.spatial(64, io * 8 + ii)
                    vj = T.axis.spatial(64, j)
                    C[vi, vj] = B[vi, vj] + T.float32(1)
