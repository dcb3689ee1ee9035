from tvm.script import ir as I
from tvm.script import tir as T

@I.ir_module
class Module:
    @T.prim_func
    def mm(A: T.Buffer((64, 64), "float32"), B: T.Buffer((64, 64), "float32"), C: T.Buffer((64, 64), "float32")):
        for i, j in T.grid(64, 64):
            with T.block("C_o"):
                vi_o = T.axis.spatial(64, i)
                vj_o = T.axis.spatial(64, j)
                vk_o = T.axis.reduce(1, 0)
                T.reads(A[vi_o, 0:64], B[vj_o, 0:64])
                T.writes(C[vi_o, vj_o])
                with T.init():
                    with T.block("C_init"):
                        T.reads()
                        T.writes(C[vi_o, vj_o])
                        C[vi_o, vj_o] = T.float32(0.0)
                for k in range(64):
                    with T.block("C"):
                        vk_i = T.axis.remap("R", [k])
                        T.reads(C[vi_o, vj_o], A[vi_o, vk_i], B[vj_o, vk_i])
                        T.writes(C[vi_o, vj_o])
                        C[vi_o, vj_o] = C[vi_o, vj_o] + A[vi_o, vk_i] * B[vj_o, vk_i]
