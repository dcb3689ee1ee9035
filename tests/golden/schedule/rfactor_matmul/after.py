from tvm.script import ir as I
from tvm.script import tir as T

@I.ir_module
class Module:
    @T.prim_func
    def mm_relu(A: T.Buffer((128, 128), "float32"), B: T.Buffer((128, 128), "float32"), C: T.Buffer((128, 128), "float32")):
        T.func_attr({"global_symbol": "mm_relu", "tir.noalias": T.bool(True)})
        Y = T.alloc_buffer((128, 128))
        Y_rf = T.alloc_buffer((4, 128, 128))
        for i, j, k_0, k_1, k_2 in T.grid(128, 128, 4, 8, 4):
            with T.block("Y_rf"):
                vk_2, vi, vj, vk_0, vk_1 = T.axis.remap("SSSRR", [k_2, i, j, k_0, k_1])
                T.reads(A[vi, vk_0 * 32 + vk_1 * 4 + vk_2], B[vk_0 * 32 + vk_1 * 4 + vk_2, vj])
                T.writes(Y_rf[vk_2, vi, vj])
                with T.init():
                    Y_rf[vk_2, vi, vj] = T.float32(0.0)
                Y_rf[vk_2, vi, vj] = Y_rf[vk_2, vi, vj] + A[vi, vk_0 * 32 + vk_1 * 4 + vk_2] * B[vk_0 * 32 + vk_1 * 4 + vk_2, vj]
        for i, j, k_2 in T.grid(128, 128, 4):
            with T.block("Y"):
                vk_2, vi, vj = T.axis.remap("RSS", [k_2, i, j])
                T.reads(Y_rf[vk_2, vi, vj])
                T.writes(Y[vi, vj])
                with T.init():
                    Y[vi, vj] = T.float32(0.0)
                Y[vi, vj] = Y[vi, vj] + Y_rf[vk_2, vi, vj]
        for i, j in T.grid(128, 128):
            with T.block("C"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(Y[vi, vj])
                T.writes(C[vi, vj])
                C[vi, vj] = T.max(Y[vi, vj], T.float32(0.0))
