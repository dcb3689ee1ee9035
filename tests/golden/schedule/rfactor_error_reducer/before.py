# Not a reduction rfactor knows: the running value is scaled at every step.
from tvm.script import ir as I
from tvm.script import tir as T


@I.ir_module
class Module:
    @T.prim_func
    def rf_reducer(A: T.Buffer((32, 128), "float32"), B: T.Buffer((32,), "float32")):
        T.func_attr({"global_symbol": "rf_reducer", "tir.noalias": True})
        for i, k in T.grid(32, 128):
            with T.block("B"):
                vi, vk = T.axis.remap("SR", [i, k])
                with T.init():
                    B[vi] = T.float32(0)
                B[vi] = B[vi] * T.float32(0.5) + A[vi, vk]
