# Default rules: a 13 x 40 x 7 matmul, register-tiled for AVX2 (sizes that are not multiples of the tile).
from tvm.script import ir as I
from tvm.script import tir as T


@I.ir_module
class Module:
    @T.prim_func
    def mm(A: T.Buffer((13, 7), "float32"), B: T.Buffer((7, 40), "float32"), C: T.Buffer((13, 40), "float32")):
        T.func_attr({"global_symbol": "mm", "tir.noalias": True})
        for i, j, k in T.grid(13, 40, 7):
            with T.block("C"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                with T.init():
                    C[vi, vj] = T.float32(0)
                C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
