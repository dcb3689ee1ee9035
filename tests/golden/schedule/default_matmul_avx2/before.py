# Default rules: a 48 x 64 x 32 matmul, register-tiled for AVX2.
from tvm.script import ir as I
from tvm.script import tir as T


@I.ir_module
class Module:
    @T.prim_func
    def mm(A: T.Buffer((48, 32), "float32"), B: T.Buffer((32, 64), "float32"), C: T.Buffer((48, 64), "float32")):
        T.func_attr({"global_symbol": "mm", "tir.noalias": True})
        for i, j, k in T.grid(48, 64, 32):
            with T.block("C"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                with T.init():
                    C[vi, vj] = T.float32(0)
                C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
