# Two instances of B write each element of B (the last one wins): moving B
# would change which one is last.
from tvm.script import ir as I
from tvm.script import tir as T


@I.ir_module
class Module:
    @T.prim_func
    def halve(A: T.Buffer((64,), "float32"), C: T.Buffer((32,), "float32")):
        T.func_attr({"global_symbol": "halve", "tir.noalias": True})
        B = T.alloc_buffer((32,), "float32")
        for i in range(64):
            with T.block("B"):
                vi = T.axis.spatial(64, i)
                B[vi // 2] = A[vi]
        for i in range(32):
            with T.block("C"):
                vi = T.axis.spatial(32, i)
                C[vi] = B[vi] * T.float32(2)
