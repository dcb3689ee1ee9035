# Row sums without a schedule: 64 outputs of 256 values each, so the default
# GPU schedule reduces each row across the threads of a block.
from tvm.script import ir as I
from tvm.script import tir as T


@I.ir_module
class Module:
    @T.prim_func
    def rowsum(A: T.Buffer((64, 256), "float32"), B: T.Buffer((64,), "float32")):
        T.func_attr({"global_symbol": "rowsum", "tir.noalias": True})
        for i, k in T.grid(64, 256):
            with T.block("B"):
                vi, vk = T.axis.remap("SR", [i, k])
                with T.init():
                    B[vi] = T.float32(0)
                B[vi] = B[vi] + A[vi, vk]
