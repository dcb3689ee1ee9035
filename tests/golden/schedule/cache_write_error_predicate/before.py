# Only the even elements of C are written: the predicate skips the others.
from tvm.script import ir as I
from tvm.script import tir as T


@I.ir_module
class Module:
    @T.prim_func
    def evens(A: T.Buffer((128,), "float32"), C: T.Buffer((128,), "float32")):
        T.func_attr({"global_symbol": "evens", "tir.noalias": True})
        for i in range(128):
            with T.block("C"):
                vi = T.axis.spatial(128, i)
                T.where(i % 2 == 0)
                C[vi] = A[vi] + T.float32(1)
