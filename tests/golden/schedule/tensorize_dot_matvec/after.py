from tvm.script import ir as I
from tvm.script import tir as T

@I.ir_module
class Module:
    @T.prim_func
    def matvec(M: T.Buffer((8, 16), "float32"), x: T.Buffer((16,), "float32"), y: T.Buffer((8,), "float32")):
        for i, k_0 in T.grid(8, 4):
            with T.block("y_o"):
                vi_o, vk_o = T.axis.remap("SR", [i, k_0])
                T.reads(y[vi_o], M[vi_o, vk_o * 4:vk_o * 4 + 4], x[vk_o * 4:vk_o * 4 + 4])
                T.writes(y[vi_o])
                y[vi_o] = y[vi_o] + (M[vi_o, vk_o * 4] * x[vk_o * 4] + M[vi_o, vk_o * 4 + 1] * x[vk_o * 4 + 1] + (M[vi_o, vk_o * 4 + 2] * x[vk_o * 4 + 2] + M[vi_o, vk_o * 4 + 3] * x[vk_o * 4 + 3]))
