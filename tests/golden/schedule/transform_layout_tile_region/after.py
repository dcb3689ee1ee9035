from tvm.script import ir as I
from tvm.script import tir as T

@I.ir_module
class Module:
    @T.prim_func
    def scale_add(A: T.Buffer((128, 128), "float32"), C: T.Buffer((128, 128), "float32")):
        B = T.alloc_buffer((8, 8, 16, 16))
        for i_0, j_0 in T.grid(8, 8):
            with T.block("B_o"):
                vi_o, vj_o = T.axis.remap("SS", [i_0, j_0])
                T.reads(A[vi_o * 16:vi_o * 16 + 16, vj_o * 16:vj_o * 16 + 16])
                T.writes(B[vi_o, vj_o, 0:16, 0:16])
                for i_1, j_1 in T.grid(16, 16):
                    with T.block("B"):
                        vi_i, vj_i = T.axis.remap("SS", [i_1, j_1])
                        T.reads(A[vi_o * 16 + vi_i, vj_o * 16 + vj_i])
                        T.writes(B[vi_o, vj_o, vi_i, vj_i])
                        B[vi_o, vj_o, vi_i, vj_i] = A[vi_o * 16 + vi_i, vj_o * 16 + vj_i] * T.float32(2.0)
        for i, j in T.grid(128, 128):
            with T.block("C"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(B[vi // 16, vj // 16, vi % 16, vj % 16])
                T.writes(C[vi, vj])
                C[vi, vj] = B[vi // 16, vj // 16, vi % 16, vj % 16] + T.float32(1.0)
