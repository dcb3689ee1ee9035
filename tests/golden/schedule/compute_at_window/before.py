# A 3-wide window sum over a scaled input (1026 -> 1024): compute_at of the
# scale under the sum's 128-wide tile needs the hull of three shifted reads,
# 130 elements per tile.
from tvm.script import ir as I
from tvm.script import tir as T


@I.ir_module
class Module:
    @T.prim_func
    def window(A: T.Buffer((1026,), "float32"), C: T.Buffer((1024,), "float32")):
        T.func_attr({"global_symbol": "window", "tir.noalias": True})
        B = T.alloc_buffer((1026,), "float32")
        for i in range(1026):
            with T.block("B"):
                vi = T.axis.spatial(1026, i)
                B[vi] = A[vi] * T.float32(2)
        for i in range(1024):
            with T.block("C"):
                vi = T.axis.spatial(1024, i)
                C[vi] = B[vi] + B[vi + 1] + B[vi + 2]
