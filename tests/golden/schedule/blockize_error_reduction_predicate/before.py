# A predicate that skips the first steps of the reduction.
from tvm.script import ir as I
from tvm.script import tir as T


@I.ir_module
class Module:
    @T.prim_func
    def rf_pred(A: T.Buffer((32, 128), "float32"), S: T.Buffer((32,), "float32")):
        T.func_attr({"global_symbol": "rf_pred", "tir.noalias": True})
        for i, k0, k1 in T.grid(32, 16, 8):
            with T.block("S"):
                vi = T.axis.spatial(32, i)
                vk = T.axis.reduce(128, k0 * 8 + k1)
                T.where(k0 * 8 + k1 >= 8)
                with T.init():
                    S[vi] = T.float32(0)
                S[vi] = S[vi] + A[vi, vk]
