from tvm.script import ir as I
from tvm.script import tir as T

@I.ir_module
class Module:
    @T.prim_func
    def add3(A: T.Buffer((4, 8, 16), "float32"), B: T.Buffer((4, 8, 16), "float32")):
        T.func_attr({"global_symbol": "add3", "tir.noalias": T.bool(True)})
        for i, j, k in T.grid(4, 8, 16):
            with T.block("B"):
                vi, vj, vk = T.axis.remap("SSS", [i, j, k])
                T.reads(A[vi, vj, vk])
                T.writes(B[vi, vj, vk])
                B[vi, vj, vk] = A[vi, vj, vk] + T.float32(1.0)
