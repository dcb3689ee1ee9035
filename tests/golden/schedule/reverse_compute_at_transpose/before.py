# A producer tiled 8x5 over a 64x30 buffer (30 = 6 tiles of 5) and a
# consumer that reads it transposed: reverse_compute_at at the producer's
# i_1 loop maps the one produced row to the consumer's second iter var, and
# preserve_unit_loops keeps a loop of extent 1 for it.
from tvm.script import ir as I
from tvm.script import tir as T


@I.ir_module
class Module:
    @T.prim_func
    def transpose(A: T.Buffer((64, 30), "float32"), C: T.Buffer((30, 64), "float32")):
        T.func_attr({"global_symbol": "transpose", "tir.noalias": True})
        B = T.alloc_buffer((64, 30), "float32")
        for i_0, j_0, i_1, j_1 in T.grid(8, 6, 8, 5):
            with T.block("B"):
                vi = T.axis.spatial(64, i_0 * 8 + i_1)
                vj = T.axis.spatial(30, j_0 * 5 + j_1)
                B[vi, vj] = A[vi, vj] - T.float32(3)
        for i, j in T.grid(30, 64):
            with T.block("C"):
                vi, vj = T.axis.remap("SS", [i, j])
                C[vi, vj] = B[vj, vi] * T.float32(0.25)
