from tvm.script import ir as I
from tvm.script import tir as T

@I.ir_module
class Module:
    @T.prim_func
    def matvec(M: T.Buffer((8, 16), "float32"), x: T.Buffer((16,), "float32"), y: T.Buffer((8,), "float32")):
        for i, k in T.grid(8, 16):
            with T.block("y"):
                vi, vk = T.axis.remap("SR", [i, k])
                T.reads(y[vi], M[vi, vk], x[vk])
                T.writes(y[vi])
                y[vi] = y[vi] + M[vi, vk] * x[vk]
