# A matmul with the reduction loop outermost.
from tvm.script import ir as I
from tvm.script import tir as T


@I.ir_module
class Module:
    @T.prim_func
    def k_outer(A: T.Buffer((64, 64), "float32"), B: T.Buffer((64, 64), "float32"), Y: T.Buffer((64, 64), "float32")):
        T.func_attr({"global_symbol": "k_outer", "tir.noalias": True})
        for k, i, j in T.grid(64, 64, 64):
            with T.block("Y"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                with T.init():
                    Y[vi, vj] = T.float32(0)
                Y[vi, vj] = Y[vi, vj] + A[vi, vk] * B[vk, vj]
