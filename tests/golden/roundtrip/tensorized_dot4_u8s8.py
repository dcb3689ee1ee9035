# An int8 matmul tensorized onto dot_16x4_u8s8: each step of the reduction is one
# T.dot4_u8s8 over a row's 4 bytes of A and 64 bytes of B laid out 4-interleaved.
from tvm.script import ir as I
from tvm.script import tir as T
from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func
    def mm(A: T.Buffer((3, 16), "uint8"), B: T.Buffer((2, 4, 64), "int8"), C: T.Buffer((3, 32), "int32")):
        for i, j_0 in T.grid(3, 2):
            for j_1_init in range(16):
                with T.block("mm_init"):
                    vi = T.axis.spatial(3, i)
                    vj = T.axis.spatial(32, j_0 * 16 + j_1_init)
                    T.reads()
                    T.writes(C[vi, vj])
                    C[vi, vj] = 0
            for k_0 in range(4):
                with T.block("mm_update_o"):
                    vi_o, vj_o, vk_o = T.axis.remap("SSR", [i, j_0, k_0])
                    T.reads(C[vi_o, vj_o * 16:vj_o * 16 + 16], A[vi_o, vk_o * 4:vk_o * 4 + 4], B[vj_o, vk_o, 0:64])
                    T.writes(C[vi_o, vj_o * 16:vj_o * 16 + 16])
                    C[vi_o, T.Ramp(vj_o * 16, 1, 16)] = T.dot4_u8s8(C[vi_o, T.Ramp(vj_o * 16, 1, 16)], A[vi_o, T.Ramp(vk_o * 4, 1, 4)], B[vj_o, vk_o, T.Ramp(0, 1, 64)])
