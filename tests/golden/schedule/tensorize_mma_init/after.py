from tvm.script import ir as I
from tvm.script import tir as T

@I.ir_module
class Module:
    @T.prim_func
    def mm(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16, 16), "float32"), C: T.Buffer((16, 16), "float32")):
        for i_0, j_0, k_0 in T.grid(4, 4, 4):
            with T.block("C_o"):
                vi_o, vj_o, vk_o = T.axis.remap("SSR", [i_0, j_0, k_0])
                T.reads(A[vi_o * 4:vi_o * 4 + 4, vk_o * 4:vk_o * 4 + 4], B[vk_o * 4:vk_o * 4 + 4, vj_o * 4:vj_o * 4 + 4])
                T.writes(C[vi_o * 4:vi_o * 4 + 4, vj_o * 4:vj_o * 4 + 4])
                with T.init():
                    for i_1, j_1 in T.grid(4, 4):
                        with T.block("C_init"):
                            vi_i_init, vj_i_init = T.axis.remap("SS", [i_1, j_1])
                            T.reads()
                            T.writes(C[vi_o * 4 + vi_i_init, vj_o * 4 + vj_i_init])
                            C[vi_o * 4 + vi_i_init, vj_o * 4 + vj_i_init] = T.float32(0.0)
                for k, i in T.grid(4, 4):
                    for j in T.vectorized(4):
                        C[vi_o * 4 + i, vj_o * 4 + j] = C[vi_o * 4 + i, vj_o * 4 + j] + A[vi_o * 4 + i, vk_o * 4 + k] * B[vk_o * 4 + k, vj_o * 4 + j]
