# C stores at vi // 2: two instances write each element, and merged into B
# they would run in B's order.
from tvm.script import ir as I
from tvm.script import tir as T


@I.ir_module
class Module:
    @T.prim_func
    def halve_c(A: T.Buffer((64,), "float32"), C: T.Buffer((32,), "float32")):
        T.func_attr({"global_symbol": "halve_c", "tir.noalias": True})
        B = T.alloc_buffer((64,), "float32")
        for i in range(64):
            with T.block("B"):
                vi = T.axis.spatial(64, i)
                B[vi] = A[vi] + T.float32(1)
        for i in range(64):
            with T.block("C"):
                vi = T.axis.spatial(64, i)
                C[vi // 2] = B[vi]
