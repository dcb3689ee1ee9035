# Only the first 100 of C's 128 elements are written.
from tvm.script import ir as I
from tvm.script import tir as T


@I.ir_module
class Module:
    @T.prim_func
    def prefix(A: T.Buffer((128,), "float32"), C: T.Buffer((128,), "float32")):
        T.func_attr({"global_symbol": "prefix", "tir.noalias": True})
        for i in range(100):
            with T.block("C"):
                vi = T.axis.spatial(100, i)
                C[vi] = A[vi] + T.float32(1)
