# The benchmark's naive matmul (bench/matmul/naive.py) at 64 x 64 x 64: one
# block with an init over i, j, k.
from tvm.script import ir as I
from tvm.script import tir as T


@I.ir_module
class Module:
    @T.prim_func
    def matmul(A: T.Buffer((64, 64), "float32"),
               B: T.Buffer((64, 64), "float32"),
               C: T.Buffer((64, 64), "float32")):
        T.func_attr({"global_symbol": "matmul", "tir.noalias": True})
        for i, j, k in T.grid(64, 64, 64):
            with T.block("C"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                with T.init():
                    C[vi, vj] = T.float32(0)
                C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
