# Row sums: one reduction loop.
from tvm.script import ir as I
from tvm.script import tir as T


@I.ir_module
class Module:
    @T.prim_func
    def rowsum(A: T.Buffer((32, 128), "float32"), B: T.Buffer((32,), "float32")):
        T.func_attr({"global_symbol": "rowsum", "tir.noalias": True})
        for i, k in T.grid(32, 128):
            with T.block("B"):
                vi, vk = T.axis.remap("SR", [i, k])
                with T.init():
                    B[vi] = T.float32(0)
                B[vi] = B[vi] + A[vi, vk]
