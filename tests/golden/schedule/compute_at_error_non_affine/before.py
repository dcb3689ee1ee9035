# A reduction whose binding is not affine in its loops (i * i % 64) cannot
# have its region recomputed per tile.
from tvm.script import ir as I
from tvm.script import tir as T


@I.ir_module
class Module:
    @T.prim_func
    def rowsum(A: T.Buffer((64, 64), "float32"), C: T.Buffer((64,), "float32")):
        T.func_attr({"global_symbol": "rowsum", "tir.noalias": True})
        S = T.alloc_buffer((64,), "float32")
        for i, k in T.grid(64, 64):
            with T.block("S"):
                vi = T.axis.spatial(64, i * i % 64)
                vk = T.axis.reduce(64, k)
                with T.init():
                    S[vi] = T.float32(0)
                S[vi] = S[vi] + A[vi, vk]
        for i in range(64):
            with T.block("C"):
                vi = T.axis.spatial(64, i)
                C[vi] = S[vi] * T.float32(2)
