# Loop r, inside the reduction loop, feeds no iter var: the block repeats.
from tvm.script import ir as I
from tvm.script import tir as T


@I.ir_module
class Module:
    @T.prim_func
    def rf_unbound(A: T.Buffer((32, 128), "float32"), B: T.Buffer((32,), "float32")):
        T.func_attr({"global_symbol": "rf_unbound", "tir.noalias": True})
        for i, k, r in T.grid(32, 128, 2):
            with T.block("B"):
                vi, vk = T.axis.remap("SR", [i, k])
                with T.init():
                    B[vi] = T.float32(0)
                B[vi] = B[vi] + A[vi, vk]
