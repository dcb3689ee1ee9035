# The GPU walk-through's first program: C = A + B over 4096 elements.
from tvm.script import ir as I
from tvm.script import tir as T


@I.ir_module
class Module:
    @T.prim_func
    def add(A: T.Buffer((4096,), "float32"), B: T.Buffer((4096,), "float32"), C: T.Buffer((4096,), "float32")):
        T.func_attr({"global_symbol": "add", "tir.noalias": True})
        for i in range(4096):
            with T.block("C"):
                vi = T.axis.spatial(4096, i)
                C[vi] = A[vi] + B[vi]
