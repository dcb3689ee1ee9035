# Default rules: an elementwise chain (fused, parallel, vectorized).
from tvm.script import ir as I
from tvm.script import tir as T


@I.ir_module
class Module:
    @T.prim_func
    def ew(A: T.Buffer((64, 48), "float32"), B: T.Buffer((64, 48), "float32"), C: T.Buffer((64, 48), "float32")):
        T.func_attr({"global_symbol": "ew", "tir.noalias": True})
        for i, j in T.grid(64, 48):
            with T.block("C"):
                vi, vj = T.axis.remap("SS", [i, j])
                C[vi, vj] = T.max(A[vi, vj] * B[vi, vj] + T.float32(1), T.float32(0))
