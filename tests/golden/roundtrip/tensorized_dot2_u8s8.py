# An int8 matmul tensorized onto dot_8x2_u8s8 (the form for CPUs without VNNI): each
# step of the reduction is one T.dot2_u8s8 over a row's 2 bytes of A and 16 bytes of B
# laid out 2-interleaved.
from tvm.script import ir as I
from tvm.script import tir as T
from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func
    def mm(A: T.Buffer((3, 16), "uint8"), B: T.Buffer((2, 8, 16), "int8"), C: T.Buffer((3, 16), "int32")):
        for i, j_0 in T.grid(3, 2):
            for j_1_init in range(8):
                with T.block("mm_init"):
                    vi = T.axis.spatial(3, i)
                    vj = T.axis.spatial(16, j_0 * 8 + j_1_init)
                    T.reads()
                    T.writes(C[vi, vj])
                    C[vi, vj] = 0
            for k_0 in range(8):
                with T.block("mm_update_o"):
                    vi_o, vj_o, vk_o = T.axis.remap("SSR", [i, j_0, k_0])
                    T.reads(C[vi_o, vj_o * 8:vj_o * 8 + 8], A[vi_o, vk_o * 2:vk_o * 2 + 2], B[vj_o, vk_o, 0:16])
                    T.writes(C[vi_o, vj_o * 8:vj_o * 8 + 8])
                    C[vi_o, T.Ramp(vj_o * 8, 1, 8)] = T.dot2_u8s8(C[vi_o, T.Ramp(vj_o * 8, 1, 8)], A[vi_o, T.Ramp(vk_o * 2, 1, 2)], B[vj_o, vk_o, T.Ramp(0, 1, 16)])
