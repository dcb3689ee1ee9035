from tvm.script import ir as I
from tvm.script import tir as T

@I.ir_module
class Module:
    @T.prim_func
    def scale(A: T.Buffer((128, 128), "float32"), B: T.Buffer((128, 128), "float32")):
        for i_0, j_0 in T.grid(16, 8):
            with T.block("B_o"):
                vi_o, vj_o = T.axis.remap("SS", [i_0, j_0])
                T.reads(A[vi_o * 8:vi_o * 8 + 8, vj_o * 16:vj_o * 16 + 16])
                T.writes(B[vi_o * 8:vi_o * 8 + 8, vj_o * 16:vj_o * 16 + 16])
                for i_1, j_1 in T.grid(8, 16):
                    with T.block("B"):
                        vi_i, vj_i = T.axis.remap("SS", [i_1, j_1])
                        T.reads(A[vi_o * 8 + vi_i, vj_o * 16 + vj_i])
                        T.writes(B[vi_o * 8 + vi_i, vj_o * 16 + vj_i])
                        B[vi_o * 8 + vi_i, vj_o * 16 + vj_i] = A[vi_o * 8 + vi_i, vj_o * 16 + vj_i] * T.float32(2.0)
