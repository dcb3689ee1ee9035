# A three-stage elementwise chain B -> C -> D where C reads a 2-row window
# of B: C moves under D's 16-row tile first, then B under the same tile,
# covering the 17 rows C's tile reads.  B goes in with index=-2 (right after
# the last block in the tile that B depends on; there is none, so first).
from tvm.script import ir as I
from tvm.script import tir as T


@I.ir_module
class Module:
    @T.prim_func
    def chain(A: T.Buffer((65, 64), "float32"), D: T.Buffer((64, 64), "float32")):
        T.func_attr({"global_symbol": "chain", "tir.noalias": True})
        B = T.alloc_buffer((65, 64), "float32")
        C = T.alloc_buffer((64, 64), "float32")
        for i, j in T.grid(65, 64):
            with T.block("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                B[vi, vj] = A[vi, vj] * T.float32(3)
        for i, j in T.grid(64, 64):
            with T.block("C"):
                vi, vj = T.axis.remap("SS", [i, j])
                C[vi, vj] = B[vi, vj] + B[vi + 1, vj]
        for i, j in T.grid(64, 64):
            with T.block("D"):
                vi, vj = T.axis.remap("SS", [i, j])
                D[vi, vj] = C[vi, vj] - T.float32(1)
