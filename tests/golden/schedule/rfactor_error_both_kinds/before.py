# Loop f feeds both a spatial iter (f // 16) and a reduce iter (f % 16).
from tvm.script import ir as I
from tvm.script import tir as T


@I.ir_module
class Module:
    @T.prim_func
    def rf_both(A: T.Buffer((8, 16, 32), "float32"), B: T.Buffer((8, 16), "float32")):
        T.func_attr({"global_symbol": "rf_both", "tir.noalias": True})
        for i, f, k2 in T.grid(8, 256, 2):
            with T.block("B"):
                vi = T.axis.spatial(8, i)
                vj = T.axis.spatial(16, f // 16)
                vk = T.axis.reduce(32, f % 16 * 2 + k2)
                with T.init():
                    B[vi, vj] = T.float32(0)
                B[vi, vj] = B[vi, vj] + A[vi, vj, vk]
