# C is written at even positions only; D reads all of C.
from tvm.script import ir as I
from tvm.script import tir as T


@I.ir_module
class Module:
    @T.prim_func
    def strided(A: T.Buffer((64,), "float32"), C: T.Buffer((128,), "float32"), D: T.Buffer((128,), "float32")):
        T.func_attr({"global_symbol": "strided", "tir.noalias": True})
        for i in range(64):
            with T.block("C"):
                vi = T.axis.spatial(64, i)
                C[vi * 2] = A[vi] + T.float32(1)
        for i in range(128):
            with T.block("D"):
                vi = T.axis.spatial(128, i)
                D[vi] = C[vi] * T.float32(2)
