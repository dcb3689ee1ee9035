from tvm.script import ir as I
from tvm.script import tir as T

@I.ir_module
class Module:
    @T.prim_func
    def mm(A: T.Buffer((64, 64), "float32"), B: T.Buffer((64, 64), "float32"), C: T.Buffer((64, 64), "float32")):
        for k in range(64):
            with T.block("C_o"):
                vi_o = T.axis.spatial(1, 0)
                vj_o = T.axis.spatial(1, 0)
                vk_o = T.axis.reduce(64, k)
                T.reads(A[0:64, vk_o], B[0:64, vk_o])
                T.writes(C[0:64, 0:64])
                with T.init():
                    for i, j in T.grid(64, 64):
                        with T.block("C_init"):
                            vi_i_init, vj_i_init = T.axis.remap("SS", [i, j])
                            T.reads()
                            T.writes(C[vi_i_init, vj_i_init])
                            C[vi_i_init, vj_i_init] = T.float32(0.0)
                for i, j in T.grid(64, 64):
                    with T.block("C"):
                        vi_i, vj_i = T.axis.remap("SS", [i, j])
                        T.reads(C[vi_i, vj_i], A[vi_i, vk_o], B[vj_i, vk_o])
                        T.writes(C[vi_i, vj_i])
                        C[vi_i, vj_i] = C[vi_i, vj_i] + A[vi_i, vk_o] * B[vj_i, vk_o]
