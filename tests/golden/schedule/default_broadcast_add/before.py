# Default rules: a broadcast add of a row vector.
from tvm.script import ir as I
from tvm.script import tir as T


@I.ir_module
class Module:
    @T.prim_func
    def badd(A: T.Buffer((32, 4, 40), "float32"), b: T.Buffer((40,), "float32"), C: T.Buffer((32, 4, 40), "float32")):
        T.func_attr({"global_symbol": "badd", "tir.noalias": True})
        for i, k, j in T.grid(32, 4, 40):
            with T.block("C"):
                vi, vk, vj = T.axis.remap("SSS", [i, k, j])
                C[vi, vk, vj] = A[vi, vk, vj] + b[vj]
