# H writes the first half of B, C reads all of it.
from tvm.script import ir as I
from tvm.script import tir as T


@I.ir_module
class Module:
    @T.prim_func
    def half_written(A: T.Buffer((128,), "float32"), C: T.Buffer((128,), "float32")):
        T.func_attr({"global_symbol": "half_written", "tir.noalias": True})
        B = T.alloc_buffer((128,))
        for i in range(64):
            with T.block("H"):
                vi = T.axis.spatial(64, i)
                B[vi] = A[vi]
        for i in range(128):
            with T.block("C"):
                vi = T.axis.spatial(128, i)
                C[vi] = B[vi] + T.float32(1)
