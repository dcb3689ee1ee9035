# The GPU walk-through's first program: C = A + B over 1024 elements.
from tvm.script import ir as I
from tvm.script import tir as T


@I.ir_module
class Module:
    @T.prim_func
    def add(A: T.Buffer((1024,), "float32"), B: T.Buffer((1024,), "float32"), C: T.Buffer((1024,), "float32")):
        T.func_attr({"global_symbol": "add", "tir.noalias": True})
        for i in range(1024):
            with T.block("C"):
                vi = T.axis.spatial(1024, i)
                C[vi] = A[vi] + B[vi]
