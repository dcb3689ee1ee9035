# A sum that starts from 1, not from the identity 0.
from tvm.script import ir as I
from tvm.script import tir as T


@I.ir_module
class Module:
    @T.prim_func
    def rf_identity(A: T.Buffer((32, 128), "float32"), B: T.Buffer((32,), "float32")):
        T.func_attr({"global_symbol": "rf_identity", "tir.noalias": True})
        for i, k in T.grid(32, 128):
            with T.block("B"):
                vi, vk = T.axis.remap("SR", [i, k])
                with T.init():
                    B[vi] = T.float32(1)
                B[vi] = B[vi] + A[vi, vk]
