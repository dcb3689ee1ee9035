# Default rules: a transpose writes its innermost loop with a stride, so it stays scalar.
from tvm.script import ir as I
from tvm.script import tir as T


@I.ir_module
class Module:
    @T.prim_func
    def transpose(A: T.Buffer((64, 72), "float32"), B: T.Buffer((72, 64), "float32")):
        T.func_attr({"global_symbol": "transpose", "tir.noalias": True})
        for i, j in T.grid(64, 72):
            with T.block("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                B[vj, vi] = A[vi, vj]
