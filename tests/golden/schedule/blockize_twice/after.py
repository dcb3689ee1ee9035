from tvm.script import ir as I
from tvm.script import tir as T

@I.ir_module
class Module:
    @T.prim_func
    def mm(A: T.Buffer((64, 64), "float32"), B: T.Buffer((64, 64), "float32"), C: T.Buffer((64, 64), "float32")):
        for i_0_0 in range(2):
            with T.block("C_o_o"):
                vi_o_o = T.axis.spatial(2, i_0_0)
                vj_o_o = T.axis.spatial(1, 0)
                vk_o_o = T.axis.reduce(1, 0)
                T.reads(A[vi_o_o * 32:vi_o_o * 32 + 32, 0:64], B[0:64, 0:64])
                T.writes(C[vi_o_o * 32:vi_o_o * 32 + 32, 0:64])
                with T.init():
                    for i_0_1, j_0 in T.grid(2, 4):
                        with T.block("C_o_init"):
                            vi_o_i_init, vj_o_i_init = T.axis.remap("SS", [i_0_1, j_0])
                            T.reads()
                            T.writes(C[vi_o_o * 32 + vi_o_i_init * 16:vi_o_o * 32 + vi_o_i_init * 16 + 16, vj_o_i_init * 16:vj_o_i_init * 16 + 16])
                            for i_1, j_1 in T.grid(16, 16):
                                with T.block("C_init"):
                                    vi_i_init, vj_i_init = T.axis.remap("SS", [i_1, j_1])
                                    T.reads()
                                    T.writes(C[vi_o_o * 32 + vi_o_i_init * 16 + vi_i_init, vj_o_i_init * 16 + vj_i_init])
                                    C[vi_o_o * 32 + vi_o_i_init * 16 + vi_i_init, vj_o_i_init * 16 + vj_i_init] = T.float32(0.0)
                for i_0_1, j_0 in T.grid(2, 4):
                    with T.block("C_o"):
                        vi_o_i, vj_o_i = T.axis.remap("SS", [i_0_1, j_0])
                        T.reads(C[vi_o_o * 32 + vi_o_i * 16:vi_o_o * 32 + vi_o_i * 16 + 16, vj_o_i * 16:vj_o_i * 16 + 16], A[vi_o_o * 32 + vi_o_i * 16:vi_o_o * 32 + vi_o_i * 16 + 16, 0:64], B[vj_o_i * 16:vj_o_i * 16 + 16, 0:64])
                        T.writes(C[vi_o_o * 32 + vi_o_i * 16:vi_o_o * 32 + vi_o_i * 16 + 16, vj_o_i * 16:vj_o_i * 16 + 16])
                        for i_1, j_1, k in T.grid(16, 16, 64):
                            with T.block("C"):
                                vi_i, vj_i, vk_i = T.axis.remap("SSR", [i_1, j_1, k])
                                T.reads(C[vi_o_o * 32 + vi_o_i * 16 + vi_i, vj_o_i * 16 + vj_i], A[vi_o_o * 32 + vi_o_i * 16 + vi_i, vk_i], B[vj_o_i * 16 + vj_i, vk_i])
                                T.writes(C[vi_o_o * 32 + vi_o_i * 16 + vi_i, vj_o_i * 16 + vj_i])
                                C[vi_o_o * 32 + vi_o_i * 16 + vi_i, vj_o_i * 16 + vj_i] = C[vi_o_o * 32 + vi_o_i * 16 + vi_i, vj_o_i * 16 + vj_i] + A[vi_o_o * 32 + vi_o_i * 16 + vi_i, vk_i] * B[vj_o_i * 16 + vj_i, vk_i]
