# B is a parameter of the function, so block B must keep writing it.
from tvm.script import ir as I
from tvm.script import tir as T


@I.ir_module
class Module:
    @T.prim_func
    def out_b(A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "float32"), C: T.Buffer((64,), "float32")):
        T.func_attr({"global_symbol": "out_b", "tir.noalias": True})
        for i in range(64):
            with T.block("B"):
                vi = T.axis.spatial(64, i)
                B[vi] = A[vi] + T.float32(1)
        for i in range(64):
            with T.block("C"):
                vi = T.axis.spatial(64, i)
                C[vi] = B[vi] * T.float32(2)
