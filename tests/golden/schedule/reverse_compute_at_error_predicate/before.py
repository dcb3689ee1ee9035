# C only writes the first half of its output: its predicate is more than
# a bound of its domain, and the new loops could not keep it.
from tvm.script import ir as I
from tvm.script import tir as T


@I.ir_module
class Module:
    @T.prim_func
    def half(A: T.Buffer((64,), "float32"), C: T.Buffer((64,), "float32")):
        T.func_attr({"global_symbol": "half", "tir.noalias": True})
        B = T.alloc_buffer((64,), "float32")
        for i in range(64):
            with T.block("B"):
                vi = T.axis.spatial(64, i)
                B[vi] = A[vi] + T.float32(1)
        for i in range(64):
            with T.block("C"):
                vi = T.axis.spatial(64, i)
                T.where(i < 32)
                C[vi] = B[vi] * T.float32(2)
